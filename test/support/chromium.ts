/**
 * Launch options for Debian's Chromium in tests (browser downloads are impossible on these
 * machines), or the Chromium `CHROMIUM_PATH` names: headless, no sandbox (tests run as root), and
 * none of the background traffic that would try to reach Google's hosts.
 */
export const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: process.env['CHROMIUM_PATH'] || '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
};
