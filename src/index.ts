export * from './crawlee/index.js';
export * from './fetch/index.js';
export * from './robots/index.js';
export * from './sitemap/index.js';
export * from './store/index.js';
