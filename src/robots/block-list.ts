/**
 * A list the parse grows item by item, kept in arrays of at most BLOCK items. V8 moves an array
 * of more than about 16,000 items to its space for large objects, where a push costs 60 ns or
 * more against 5 ns below that size: a file of 26,549 user-agent lines spent a third of its parse
 * pushing onto the three lists it keeps by user-agent line, each growing past that size.
 */

/** Items a block holds; its array stays well under the size V8 treats as large. */
const BLOCK_BITS = 10;
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;

export class BlockList<T> {
  /** The items of the block being filled, the only one until it is full. */
  private last: T[] = [];
  /** Every block, the last included, once there are two; null before. */
  private blocks: T[][] | null = null;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.last.length === BLOCK) {
      if (this.blocks === null) this.blocks = [this.last];
      this.last = [];
      this.blocks.push(this.last);
    }
    this.last.push(item);
    this.count++;
  }

  /** Item `i`, which must be below `length`. */
  at(i: number): T {
    return this.blocks === null ? this.last[i] : this.blocks[i >>> BLOCK_BITS][i & BLOCK_MASK];
  }

  /** Replaces item `i`, which must be below `length`. */
  set(i: number, item: T): void {
    if (this.blocks === null) this.last[i] = item;
    else this.blocks[i >>> BLOCK_BITS][i & BLOCK_MASK] = item;
  }

  /** The blocks, in order, each full but the last. */
  parts(): readonly (readonly T[])[] {
    return this.blocks ?? [this.last];
  }
}

const NO_INTS = new Int32Array(0);

/**
 * A list of integers the parse grows item by item, in a typed array that doubles when full (see
 * BlockList on arrays; a list of its own keeps BlockList's reads and writes to one kind of item).
 */
export class IntList {
  private ints = NO_INTS;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: number): void {
    if (this.count === this.ints.length) {
      const grown = new Int32Array(Math.max(16, this.count * 2));
      grown.set(this.ints);
      this.ints = grown;
    }
    this.ints[this.count++] = item;
  }

  /** Item `i`, which must be below `length`. */
  at(i: number): number {
    return this.ints[i];
  }
}

/**
 * Lists kept for the life of the process. V8 keeps the hidden class of a list, and the type
 * feedback that names it, only while a list is alive; the parse's lists die with it, so a full
 * collection between two parses dropped both. The next file with more items than a block then
 * sent push() back to the interpreter, and with it the optimized code that had inlined at().
 */
const kept: unknown[] = [];

/**
 * Every path of the lists, taken once as the module loads. The first file with more items than a
 * block (or than an IntList's first array) would otherwise reach code that the engine optimized
 * with no type feedback for it, and send its parse back to the interpreter there.
 */
function warm(): void {
  const items = new BlockList<{ n: number } | string | null>();
  const ints = new IntList();
  for (let i = 0; i < 2 * BLOCK + 1; i++) {
    items.push(i % 3 === 0 ? null : i % 3 === 1 ? 'w' : { n: i });
    ints.push(i);
  }
  for (let i = 0; i < items.length; i += 7) items.set(i, items.at(ints.at(i)));
  items.parts();
  kept.push(new BlockList(), new IntList());
}
warm();
