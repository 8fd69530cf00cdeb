import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The README's TypeScript examples that use the package and need no network. */
const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
  .map((m) => m[1])
  .filter((code) => code.includes("from 'crawlee-robots'") && !code.includes('// needs: '));

describe('README examples', () => {
  it('has examples', () => {
    expect(snippets.length).toBeGreaterThan(0);
  });

  it.each(snippets.map((code, i) => [i + 1, code]))('example %i runs as written', (i, code) => {
    const dir = join(root, '.tmp', 'readme');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${i}.ts`);
    // The only change: the package name points at the sources.
    writeFileSync(
      file,
      String(code).replaceAll("from 'crawlee-robots'", `from '${join(root, 'src', 'index.ts')}'`),
    );
    execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: 'pipe', timeout: 60_000 });
  });
});
