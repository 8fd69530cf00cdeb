/**
 * scripts/build-walk.mjs holds the text of the walk's WebAssembly module and writes
 * src/robots/walk-code.ts from it: the file in the tree is the one it writes.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/build-walk.mjs', import.meta.url));

describe('scripts/build-walk.mjs', () => {
  it('wrote src/robots/walk-code.ts as it stands', () => {
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
