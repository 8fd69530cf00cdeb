export * from './robots/index.js';
