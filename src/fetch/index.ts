/**
 * One robots.txt over HTTP: the status rules of RFC 9309 2.3.1, redirects, the size cap,
 * timeouts and content decoding, turned into an origin policy kind.
 */
export { type CacheDirectives, parseCacheControl, parseRetryAfter } from './cache-control.js';
export {
  type ContentDecoder,
  type ContentDecoding,
  contentDecoding,
  gzipDecoder,
} from './content-encoding.js';
export { CrawleeRobotsClient } from './crawlee-client.js';
export {
  DISALLOWS_ALL,
  FETCH_DEFAULTS,
  fetchRobotsTxt,
  MAX_FETCH_TIMEOUT_MS,
  MAX_HOP_TEXT,
  MAX_ROBOTS_BYTES,
  notModifiedUnasked,
  type RobotsFetchHop,
  type RobotsFetchOptions,
  type RobotsFetchResult,
  type RobotsFetchStatus,
  type RobotsFetchTimings,
  type RobotsPolicyKind,
  type RobotsRedirectFailure,
  validateUserAgent,
} from './fetch.js';
export {
  classifyFailure,
  GotScrapingRobotsClient,
  type GotScrapingRobotsClientOptions,
  http2ResetMessage,
  parseProxyUrl,
  type RobotsHttpAnswer,
  type RobotsHttpClient,
  type RobotsHttpFailure,
  type RobotsHttpRequest,
  type RobotsHttpResult,
  type RobotsNetworkFailure,
  watchGotHttp2BodyEnd,
} from './http-client.js';
export {
  NotHttpUrlError,
  originOf,
  parseHttpUrl,
  robotsTxtUrlOf,
  sameOrigin,
  withoutCredentials,
  withoutCredentialsAt,
} from './origin.js';
