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
  exports: Record<string, unknown>;
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
    expect(manifest.exports['.']).toEqual({
      types: './dist/index.d.ts',
      import: './dist/index.js',
      default: './dist/index.js',
    });
  });
});

/** The relative imports and re-exports of a source file, type-only ones included. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map(
    ([, a, b]) => a ?? b,
  );
}

describe('layering', () => {
  it("imports another folder of src only through that folder's index.ts", () => {
    const src = join(root, 'src');
    const crossing = sourceFiles(src).flatMap((file) => {
      const folder = file.slice(src.length + 1).split('/')[0];
      return relativeImports(file)
        .map((specifier) => join(file, '..', specifier).slice(src.length + 1))
        .filter((target) => {
          const [targetFolder, name] = target.split('/');
          // The package root (src/index.ts, src/options.ts) is no folder; it may read any face.
          return name !== undefined && targetFolder !== folder && name !== 'index.js';
        })
        .map((target) => `${file.slice(src.length + 1)} -> ${target}`);
    });
    expect(crossing).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    const src = join(root, 'src');
    const uses = new Map<string, Set<string>>();
    for (const file of sourceFiles(src)) {
      const folder = file.slice(src.length + 1).split('/')[0];
      if (folder.endsWith('.ts')) continue;
      for (const specifier of relativeImports(file)) {
        const target = join(file, '..', specifier)
          .slice(src.length + 1)
          .split('/')[0];
        if (target !== folder && !target.endsWith('.js')) {
          if (!uses.has(folder)) uses.set(folder, new Set());
          uses.get(folder)!.add(target);
        }
      }
    }
    // Depth-first: a folder met again while its own imports are being followed closes a cycle.
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (folder: string, path: string[]): void => {
      if (path.includes(folder)) {
        cycles.push([...path.slice(path.indexOf(folder)), folder].join(' -> '));
        return;
      }
      if (done.has(folder)) return;
      for (const next of uses.get(folder) ?? []) visit(next, [...path, folder]);
      done.add(folder);
    };
    for (const folder of uses.keys()) visit(folder, []);
    expect(cycles).toEqual([]);
    expect(uses.get('robots')).toBeUndefined();
  });

  it('keeps src/robots free of the rest of the project and of I/O', () => {
    const robots = join(root, 'src', 'robots');
    const outside = sourceFiles(robots).flatMap((file) =>
      relativeImports(file)
        .filter((specifier) => specifier.startsWith('..'))
        .map((specifier) => `${file.slice(root.length + 1)} -> ${specifier}`),
    );
    const io = sourceFiles(robots).filter((file) =>
      /from\s*['"]node:(?:fs|net|http|https|child_process|dgram|dns|tls)/.test(readFileSync(file, 'utf8')),
    );
    expect(outside).toEqual([]);
    expect(io).toEqual([]);
  });

  it('exports from the package root only its public API, whatever the folders share among themselves', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual(PUBLIC_VALUES);
  });
});

/** The values the package exports (its types are listed in src/index.ts next to them). */
const PUBLIC_VALUES = [
  'COMMON_SITEMAP_PATHS',
  'CrawleeRobotsClient',
  'DEFAULT_MAX_BYTES',
  'FALLBACK_TOKENS',
  'FETCH_DEFAULTS',
  'GUARD_DEFAULTS',
  'GotScrapingRobotsClient',
  'KeyValueStoreBackend',
  'MAX_LINE_OCTETS',
  'MAX_LOC_LENGTH',
  'MemoryBackend',
  'NotHttpUrlError',
  'RedisBackend',
  'RobotsGuard',
  'RobotsSkipError',
  'RobotsStore',
  'RobotsTxt',
  'SITEMAP_DEFAULTS',
  'STORE_DEFAULTS',
  'SitemapParser',
  'SitemapSeeder',
  'classifyFailure',
  'compilePatterns',
  'contentDecoding',
  'fetchRobotsTxt',
  'globToRegExp',
  'gzipDecoder',
  'normalizePath',
  'normalizePattern',
  'originOf',
  'parseCacheControl',
  'parseHttpUrl',
  'parseLastmod',
  'parseProxyUrl',
  'parseRetryAfter',
  'pathOf',
  'productTokenOf',
  'robotsTxtUrlOf',
  'validateUserAgent',
];
