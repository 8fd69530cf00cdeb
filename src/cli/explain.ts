/**
 * `crawlee-robots explain <url> --agent ExampleBot`: why one crawler may or may not fetch one URL.
 */
import { type RobotsLint, withoutEmptyQuery } from '../robots/index.js';
import { DEFAULT_AGENTS, sameAgent } from './agents.js';
import { renderExplain } from './explain-render.js';
import { EXIT } from './io.js';
import { jsonText, sourceJson } from './json.js';
import { gotNoAnswer, loadRobots, noAnswer, type RobotsSource, type SourceOptions } from './source.js';
import type { Style } from './style.js';
import { type CliVerdict, judge } from './verdicts.js';

export interface ExplainOptions extends SourceOptions {
  url: string;
  agent: string;
  /** Crawlers compared in the table of other crawlers. */
  agents?: readonly string[];
  json: boolean;
}

/** Everything `explain` reports, before it is rendered as text or JSON. */
export interface ExplainReport {
  url: string;
  agent: string;
  verdict: CliVerdict;
  source: RobotsSource;
  /**
   * The URL without the `?` of its empty query, when its verdict differs: the request Node's HTTP
   * clients send for it. RobotsGuard fetches such a URL only when both forms are allowed.
   */
  withoutEmptyQuery: CliVerdict | null;
  /** The same URL for the other crawlers. */
  others: CliVerdict[];
  lints: readonly RobotsLint[];
  exitCode: number;
}

export async function runExplain(
  options: ExplainOptions,
  style: Style,
): Promise<{ output: string; exitCode: number; noAnswer: string | null }> {
  const source = await loadRobots(options.url, options);
  const report = explainReport(source, options);
  const output = options.json ? jsonText(explainJson(report)) : renderExplain(report, style);
  return { output, exitCode: report.exitCode, noAnswer: noAnswer(source.fetch) };
}

function explainReport(source: RobotsSource, options: ExplainOptions): ExplainReport {
  const verdict = judge(source.fetch, options.url, options.agent);
  const bare = withoutEmptyQuery(options.url);
  const bareVerdict = bare === undefined ? undefined : judge(source.fetch, bare, options.agent);
  const others = (options.agents ?? DEFAULT_AGENTS)
    .filter((agent) => !sameAgent(agent, options.agent))
    .map((agent) => judge(source.fetch, options.url, agent));
  // Exit 2 when no HTTP answer came back: the verdict then rests on a failed fetch, not on the site.
  const exitCode = gotNoAnswer(source.fetch) ? EXIT.error : verdict.allowed ? EXIT.allowed : EXIT.disallowed;
  return {
    url: options.url,
    agent: options.agent,
    verdict,
    source,
    withoutEmptyQuery:
      bareVerdict !== undefined && bareVerdict.allowed !== verdict.allowed ? bareVerdict : null,
    others,
    lints: source.fetch.robots?.lints ?? [],
    exitCode,
  };
}

/** The `--json` output of `explain`; its shape is documented in README-section.md. */
function explainJson(report: ExplainReport) {
  const { verdict } = report;
  return {
    url: report.url,
    agent: report.agent,
    productToken: verdict.productToken,
    path: verdict.path,
    allowed: verdict.allowed,
    reason: verdict.reason,
    rule: verdict.rule,
    group: verdict.group,
    candidates: verdict.candidates,
    withoutEmptyQuery:
      report.withoutEmptyQuery === null
        ? null
        : {
            path: report.withoutEmptyQuery.path,
            allowed: report.withoutEmptyQuery.allowed,
            reason: report.withoutEmptyQuery.reason,
            line: report.withoutEmptyQuery.rule?.line ?? null,
          },
    robotsTxt: sourceJson(report.source),
    others: report.others.map((other) => ({
      agent: other.agent,
      productToken: other.productToken,
      allowed: other.allowed,
      reason: other.reason,
      line: other.rule?.line ?? null,
      group: { how: other.group.how, token: other.group.token },
    })),
    lints: report.lints,
    exitCode: report.exitCode,
  };
}
