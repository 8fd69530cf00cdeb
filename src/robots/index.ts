export { FALLBACK_TOKENS, isProductToken, productTokenOf } from './agent.js';
export { detach } from './compile.js';
export { normalizePath, normalizePattern, pathOf } from './encoding.js';
export type { ExplainOptions } from './explain.js';
export { DEFAULT_MAX_BYTES, MAX_LINE_OCTETS } from './lines.js';
export { explainAfterOrigin, parseCutBody, RobotsTxt } from './robots-txt.js';
export { codePointName, show } from './show.js';
export type * from './types.js';
export {
  HTTP_URL_START,
  hrefWithoutFragment,
  urlOrNull,
  withoutCredentials,
  withoutEmptyQuery,
  withoutUserinfo,
} from './url.js';
