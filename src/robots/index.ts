export { FALLBACK_TOKENS, productTokenOf } from './agent.js';
export { normalizePath, normalizePattern, pathOf } from './encoding.js';
export type { ExplainOptions } from './explain.js';
export { DEFAULT_MAX_BYTES, MAX_LINE_OCTETS } from './lines.js';
export { RobotsTxt } from './robots-txt.js';
export type * from './types.js';
