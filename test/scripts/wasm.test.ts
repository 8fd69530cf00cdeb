/**
 * The scripts that hold the text of a WebAssembly module write the TypeScript file carrying its
 * bytes: the file in the tree is the one each writes.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe.each([
  ['scripts/build-walk.mjs', 'src/robots/walk-code.ts'],
  ['scripts/build-pattern-copy.mjs', 'src/robots/pattern-copy-code.ts'],
])('%s', (script, target) => {
  it(`wrote ${target} as it stands`, () => {
    const path = fileURLToPath(new URL(`../../${script}`, import.meta.url));
    expect(() => execFileSync(process.execPath, [path, '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
