import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { RobotsTxt } from '../../src/index.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./support/retained-child.ts', import.meta.url));

it('counts at least the memory a parsed file keeps, and at most four times it for a large one', async () => {
  // Measured in a process of its own, with collections on demand and nothing else on the heap.
  // One GC thread: a collection asked for is swept before the next reading, not alongside it.
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--single-threaded-gc', '--import', 'tsx', CHILD],
    {
      timeout: 60_000,
      maxBuffer: 1024 * 1024,
    },
  );
  const report: Record<string, { measured: number; counted: number }> = JSON.parse(stdout.trim());
  expect(Object.keys(report)).toHaveLength(8);
  for (const [file, { measured, counted }] of Object.entries(report)) {
    expect(measured, file).toBeGreaterThan(0);
    expect(counted, `${file}: counted ${counted} B, measured ${measured} B`).toBeGreaterThanOrEqual(measured);
    // A file of a few findings measures 15-25 KiB from run to run: only large ones are held to it.
    if (measured > 64 * 1024) {
      expect(counted, `${file}: counted ${counted} B, measured ${measured} B`).toBeLessThanOrEqual(
        4 * measured,
      );
    }
  }
}, 150_000);

it('counts the table and index a check adds, which prepare builds ahead of it', () => {
  const rules = Array.from({ length: 100 }, (_, i) => `disallow: /*x${i}y*z$`).join('\n');
  const checked = RobotsTxt.parse(`user-agent: *\n${rules}\n`);
  const parsed = checked.retainedBytes;
  // The first check ranks the group and indexes it (more than 32 wildcard rules).
  expect(checked.isAllowed('/x1y/z', 'a')).toBe(false);
  expect(checked.retainedBytes).toBeGreaterThan(parsed + 100 * 12);

  const prepared = RobotsTxt.parse(`user-agent: *\n${rules}\n`);
  prepared.prepare('ExampleBot/1.0');
  const before = prepared.retainedBytes;
  expect(before).toBe(checked.retainedBytes);
  expect(prepared.isAllowed('/x1y/z', 'a')).toBe(false);
  expect(prepared.retainedBytes).toBe(before);
});

it('counts the findings the file holds, without building the ones read from its rules', () => {
  const robots = RobotsTxt.parse('user-agent: *\ndisallow: /a\ndisallow: /a\n');
  const before = robots.retainedBytes;
  expect(robots.retainedBytes).toBe(before);
  // Reading the findings builds the one about the repeated rule, which the file then keeps.
  expect(robots.lints.map((lint) => lint.code)).toContain('duplicate-rule');
  expect(robots.retainedBytes).toBeGreaterThan(before);
});
