/**
 * The command-line tester and auditor. `main.ts` is the program (`bin`); this face exports
 * `runCli` for running a command line in-process.
 */
export { type CliInput, type CliIo, type CliOutput, runCli } from './main.js';
