import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders tempDir made in this test file, for removeTempDirs. */
const made: string[] = [];

/** A new folder under the system's temporary directory, `crawlee-robots-<name>-XXXXXX`. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `crawlee-robots-${name}-`));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made, with what it holds: for the `afterAll` of a test file. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
