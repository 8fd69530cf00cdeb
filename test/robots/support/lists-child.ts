/**
 * Run with `node --expose-gc --trace-deopt --import tsx`: fills many short lists, collects all
 * garbage while none is alive, then fills one list past a block, with a line printed before each
 * phase for the trace to be read by. `probe` is deoptimized on purpose, to show that the trace works.
 */
import { BlockList } from '../../../src/robots/block-list.js';

function probe(x: number): number {
  return x * 2;
}

function small(): void {
  for (let r = 0; r < 20_000; r++) {
    const list = new BlockList<{ i: number }>();
    for (let i = 0; i < 20; i++) list.push({ i });
  }
}

function large(): number {
  const list = new BlockList<{ i: number }>();
  for (let i = 0; i < 3000; i++) list.push({ i });
  return list.length;
}

let sum = 0;
for (let i = 0; i < 200_000; i++) sum += probe(i);
console.log('probe', sum > 0);
probe('a' as unknown as number);
small();
(globalThis as { gc?: () => void }).gc?.();
small();
console.log('large');
console.log(`done ${large()}`);
