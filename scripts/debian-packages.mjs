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

/** Where Debian installs each package's program. */
const DEBIAN_PROGRAMS = { chromium: '/usr/bin/chromium', 'redis-server': '/usr/bin/redis-server' };
/** The variable that names a program of one's own instead; the tests and the demo read it too. */
const VARIABLES = { chromium: 'CHROMIUM_PATH', 'redis-server': 'REDIS_SERVER' };

/**
 * Installs those of `names` (keys of DEBIAN_PROGRAMS) whose program is missing, when it can: as
 * root, with `how.aptGet`. Returns the names still missing, having said why on stderr.
 */
export function ensurePackages(names, how = {}) {
  const { root = process.getuid?.() === 0, aptGet = '/usr/bin/apt-get', programs = DEBIAN_PROGRAMS } = how;
  const unknown = names.filter((name) => !(name in DEBIAN_PROGRAMS));
  if (unknown.length > 0) throw new Error(`unknown package: ${unknown.join(', ')}`);
  const own = names.filter((name) => process.env[VARIABLES[name]]);
  // A program of one's own that is not there is a mistake in its variable: apt-get cannot help.
  const misnamed = own.filter((name) => !existsSync(process.env[VARIABLES[name]]));
  for (const name of misnamed)
    console.error(`${VARIABLES[name]} names ${process.env[VARIABLES[name]]}, which does not exist.`);
  const missing = names.filter((name) => !own.includes(name) && !existsSync(programs[name]));
  if (missing.length === 0) return misnamed;

  const list = missing.map((name) => `${name} (${programs[name]})`).join(' and ');
  const command = `apt-get install ${missing.join(' ')}`;
  if (!root || !existsSync(aptGet)) {
    const variables = missing.map((name) => VARIABLES[name]).join(' and ');
    console.error(
      `Missing ${list}. Install Debian's packages (${root ? command : `sudo ${command}`}), or set ` +
        `${variables} to ${missing.length > 1 ? 'programs' : 'a program'} of your own.`,
    );
    return [...misnamed, ...missing];
  }
  console.error(`Installing ${list} from Debian's packages...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const steps = [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...missing],
  ];
  for (const args of steps) {
    // apt-get's notes go to stderr too: they are shown only when a step fails.
    const run = spawnSync(aptGet, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (run.status !== 0) {
      process.stderr.write(run.stderr ?? '');
      console.error(`apt-get ${args.join(' ')} failed (${run.error?.message ?? `exit code ${run.status}`}).`);
      break;
    }
  }
  const still = missing.filter((name) => !existsSync(programs[name]));
  if (still.length > 0) console.error(`Still missing after apt-get: ${still.join(', ')}.`);
  return [...misnamed, ...still];
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
