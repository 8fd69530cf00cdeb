import { describe, expect, it } from 'vitest';
import { ownInts, RobotsCompiler, type RobotsData } from '../../src/robots/compile.js';
import { tokenize } from '../../src/robots/lines.js';
import { RobotsTxt } from '../../src/robots/robots-txt.js';

/**
 * The tables of a small file are a view into a block shared with the files compiled around it
 * (see keptBlocks in compile.ts): no file may read or write another's part of it.
 */

function compile(body: string): RobotsData {
  const compiler = new RobotsCompiler();
  tokenize(body, { maxBytes: 500 * 1024, rejectHtml: true }, compiler);
  return compiler.finish();
}

/** Whether the file's tables are an array of their own, not a view into a shared block. */
function ownsInts(data: RobotsData): boolean {
  return data.ints.byteOffset === 0 && data.ints.byteLength === data.ints.buffer.byteLength;
}

/** A small file of its own: rules, groups and a crawl-delay that differ from file to file. */
function fileNumber(k: number): string {
  const lines = [`User-agent: bot${k}`, `Disallow: /only-${k}/`, `Crawl-delay: ${k % 7}`, ''];
  lines.push('User-agent: *');
  for (let r = 0; r <= k % 9; r++) lines.push(`${(k + r) % 3 === 0 ? 'Allow' : 'Disallow'}: /s${k}/${r}`);
  lines.push(`Disallow: /*.x${k}$`);
  return `${lines.join('\n')}\n`;
}

/** What a file answers for a few paths and crawlers, and its crawl-delays. */
function answers(robots: RobotsTxt, k: number): unknown[] {
  const paths = [`/only-${k}/a`, `/s${k}/0`, `/s${k}/1/z`, `/s${k}/8`, `/p.x${k}`, `/p.x${k}z`, '/other'];
  const agents = [`bot${k}`, `bot${k + 1}`, 'ExampleBot'];
  return agents.flatMap((agent) => [
    robots.crawlDelay(agent),
    ...paths.map((path) => robots.explain(path, agent).rule?.line ?? null),
  ]);
}

describe('tables in shared blocks', () => {
  it('gives files compiled one after another views into one block, none overlapping another', () => {
    const files = Array.from({ length: 40 }, (_, k) => compile(fileNumber(k)));
    // By block, the parts files hold of it. Where the first block ends depends on the files
    // compiled before (by earlier tests in the same process): some block holds several of these.
    const parts = new Map<ArrayBufferLike, Array<{ from: number; to: number }>>();
    for (const { ints } of files) {
      const part = { from: ints.byteOffset, to: ints.byteOffset + ints.byteLength };
      parts.set(ints.buffer, [...(parts.get(ints.buffer) ?? []), part]);
    }
    expect(Math.max(...[...parts.values()].map((list) => list.length))).toBeGreaterThan(1);
    for (const list of parts.values()) {
      list.sort((x, y) => x.from - y.from);
      for (let i = 1; i < list.length; i++) expect(list[i].from).toBeGreaterThanOrEqual(list[i - 1].to);
    }
  });

  it('answers for each of many files kept together as for the file parsed alone', () => {
    const count = 200;
    const kept = Array.from({ length: count }, (_, k) => RobotsTxt.parse(fileNumber(k)));
    // Asked in another order than parsed: the first check of each ranks a group and grows its tables.
    for (let k = count - 1; k >= 0; k -= 2)
      expect(answers(kept[k], k), `file ${k}`).toEqual(answers(RobotsTxt.parse(fileNumber(k)), k));
    for (let k = 0; k < count; k += 2)
      expect(answers(kept[k], k), `file ${k}`).toEqual(answers(RobotsTxt.parse(fileNumber(k)), k));
  });

  it('finds the groups of files of many tokens kept together, each with its table of tokens', () => {
    // More tokens than a list scan is used for: the file keeps a table of them. Tokens are letters.
    const bot = (k: number, t: number) =>
      `bot-${String.fromCharCode(97 + (k % 26))}${'z'.repeat(k)}-${String.fromCharCode(97 + t)}`;
    const many = (k: number) =>
      Array.from({ length: 12 }, (_, t) => `User-agent: ${bot(k, t)}\nDisallow: /${k}/${t}/\n`).join('\n');
    const kept = Array.from({ length: 30 }, (_, k) => RobotsTxt.parse(many(k)));
    for (let k = 29; k >= 0; k--) {
      for (let t = 0; t < 12; t++) {
        expect(kept[k].isAllowed(`/${k}/${t}/x`, bot(k, t)), `file ${k}, bot ${t}`).toBe(false);
        expect(kept[k].isAllowed(`/${k}/${(t + 1) % 12}/x`, bot(k, t)), `file ${k}, bot ${t}`).toBe(true);
      }
      expect(kept[k].isAllowed(`/${k}/0/x`, bot(k + 1, 0))).toBe(true);
    }
  });

  it('gives a file tables of its own on ownInts, with the same content', () => {
    // Two files compiled one after the other share a block, unless the first ended one: then the
    // next two do.
    let a = compile(fileNumber(1));
    let b = compile(fileNumber(2));
    if (a.ints.buffer !== b.ints.buffer) [a, b] = [b, compile(fileNumber(3))];
    expect(a.ints.buffer).toBe(b.ints.buffer);
    const before = Array.from(a.ints);
    ownInts(a);
    expect(ownsInts(a)).toBe(true);
    expect(Array.from(a.ints)).toEqual(before);
    expect(a.ints.buffer).not.toBe(b.ints.buffer);
    // Already its own: kept as it is.
    const own = a.ints;
    ownInts(a);
    expect(a.ints).toBe(own);
  });

  it('keeps a prepared file right when no group of it is for the crawler (nothing to rank)', () => {
    const robots = RobotsTxt.parse('User-agent: somebot\nDisallow: /x\n');
    robots.prepare('ExampleBot');
    expect(robots.isAllowed('/x', 'ExampleBot')).toBe(true);
    expect(robots.isAllowed('/x', 'somebot')).toBe(false);
  });

  it('gives a file of many rules tables of its own from the start', () => {
    const rules = Array.from({ length: 1000 }, (_, i) => `Disallow: /r${i}`).join('\n');
    expect(ownsInts(compile(`User-agent: *\n${rules}\n`))).toBe(true);
  });
});
