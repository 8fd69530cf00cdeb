/**
 * What the scripts that hold the text of a WebAssembly module share: assembling the text with
 * wabt, and writing the TypeScript file that carries the bytes, or with `--check` exiting 1 when
 * that file is not what the script writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

/** The bytes of the module whose text is `wat`, validated; `features` as wabt names them. */
export async function assemble(name, wat, features = {}) {
  const wabt = await wabtInit();
  const module = wabt.parseWat(name, wat, features);
  module.validate();
  const { buffer } = module.toBinary({});
  module.destroy();
  return buffer;
}

/** The bytes as a TypeScript string constant's value, in base64. */
export function base64(bytes) {
  return Buffer.from(bytes).toString('base64');
}

/** Writes `source` to `target` (a URL), or with `--check` exits 1 when the file differs. */
export function writeOrCheck(target, source, script) {
  const path = fileURLToPath(target);
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== source) {
      console.error(`${path} is not what ${script} writes: run it`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, source);
  }
}
