import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
  exports: Record<string, { types: string; import: string }>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The package a bare specifier names: `a` of `a/b`, `@s/a` of `@s/a/b`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Packages the shipped code loads: static and dynamic imports and re-exports, not type-only ones. */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = new Set<string>();
  const statements =
    /^\s*(?:import(?!\s+type\b)[^'"]*?from\s*|import\s*|export(?!\s+type\b)[^'"]*?from\s*)['"]([^'"]+)['"]/gm;
  for (const [, specifier] of text.matchAll(statements)) found.add(specifier);
  for (const [, specifier] of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(specifier);
  return [...found]
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map(packageOf);
}

describe('package.json', () => {
  it('declares every package the shipped code imports (a transitive one is not there under pnpm)', () => {
    const declared = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
    ]);
    const missing = sourceFiles(join(root, 'src')).flatMap((file) =>
      importedPackages(file)
        .filter((name) => !declared.has(name))
        .map((name) => `${name} (${file.slice(root.length + 1)})`),
    );
    expect(missing).toEqual([]);
  });

  it("takes crawlee from the user's project, and tests against a version the peer range admits", () => {
    // One Crawlee in a project: the guard patches the user's crawlers and writes through their storage.
    expect(manifest.dependencies.crawlee).toBeUndefined();
    const [major, minor] = manifest.devDependencies.crawlee.split('.').map(Number);
    const range = /^\^(\d+)\.(\d+)\.\d+$/.exec(manifest.peerDependencies.crawlee);
    expect(range).not.toBeNull();
    expect(major).toBe(Number(range![1]));
    expect(minor).toBeGreaterThanOrEqual(Number(range![2]));
  });

  it('points bin and exports at what the build writes from src', () => {
    expect(manifest.bin['crawlee-robots']).toBe('dist/cli/main.js');
    expect(readFileSync(join(root, 'src/cli/main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(
      true,
    );
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
  });
});
