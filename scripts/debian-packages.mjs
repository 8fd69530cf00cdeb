// The programs from Debian that the tests and the demo run: Chromium, which Playwright drives
// (its own browser download is not needed), and redis-server, which the Redis backend's tests
// start on loopback. A missing one is installed with apt-get when this runs as root on a
// machine that has it; otherwise the command to run is printed.
//
//   node scripts/debian-packages.mjs chromium redis-server    exits 1 when one is still missing
//   node scripts/debian-packages.mjs --optional chromium      exits 0 all the same
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where each package's program is looked for; the tests and the demo run it from there. */
const PROGRAMS = {
  chromium: () => process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  'redis-server': () => process.env.REDIS_SERVER || '/usr/bin/redis-server',
};
/** The variable that names a program of one's own instead. */
const VARIABLES = { chromium: 'CHROMIUM_PATH', 'redis-server': 'REDIS_SERVER' };

/**
 * Installs those of `names` (keys of PROGRAMS) whose program is missing, when it can: as root,
 * with `how.aptGet`. Returns the names still missing, having said why on stderr.
 */
export function ensurePackages(names, how = { root: process.getuid?.() === 0, aptGet: '/usr/bin/apt-get' }) {
  const unknown = names.filter((name) => !(name in PROGRAMS));
  if (unknown.length > 0) throw new Error(`unknown package: ${unknown.join(', ')}`);
  const missing = names.filter((name) => !existsSync(PROGRAMS[name]()));
  if (missing.length === 0) return [];
  const list = missing.map((name) => `${name} (${PROGRAMS[name]()})`).join(' and ');
  const command = `apt-get install ${missing.join(' ')}`;
  const root = how.root;
  if (!root || !existsSync(how.aptGet)) {
    console.error(
      `Missing ${list}. Install Debian's packages (${root ? command : `sudo ${command}`}), or set ` +
        `${missing.map((name) => VARIABLES[name]).join(' and ')} to ${missing.length > 1 ? 'programs' : 'a program'} of your own.`,
    );
    return missing;
  }
  console.error(`Installing ${list} from Debian's packages...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const steps = [
    [how.aptGet, ['update', '-qq']],
    [how.aptGet, ['install', '-y', '-qq', '--no-install-recommends', ...missing]],
  ];
  for (const [program, args] of steps) {
    // apt-get's notes go to stderr too: they are shown only when a step fails.
    const run = spawnSync(program, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (run.status !== 0) {
      process.stderr.write(run.stderr ?? '');
      console.error(
        `${program} ${args.join(' ')} failed (${run.error?.message ?? `exit code ${run.status}`}).`,
      );
      break;
    }
  }
  const still = missing.filter((name) => !existsSync(PROGRAMS[name]()));
  if (still.length > 0) console.error(`Still missing after apt-get: ${still.join(', ')}.`);
  return still;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const optional = args.includes('--optional');
  const missing = ensurePackages(args.filter((arg) => arg !== '--optional'));
  if (missing.length > 0 && optional && missing.includes('chromium'))
    console.error(
      "Going on: Playwright's own Chromium is used if `npx playwright install` put one in place.",
    );
  process.exit(missing.length > 0 && !optional ? 1 : 0);
}
