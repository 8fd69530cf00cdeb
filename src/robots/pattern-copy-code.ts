// Written by scripts/build-pattern-copy.mjs, which holds the module's text: edit that, then run it.

/** The module's bytes. */
export const PATTERN_COPY_MODULE =
  'AGFzbQEAAAABCAFgA39/fwF/AwIBAAUEAQEwMAcRAgZtZW1vcnkCAARjb3B5AAAKxQIBwgICBn8CeyABIABKBEAgAUEBa0EBdC8BgICAAUEkRiEGCyABIABrIAZrIQQgAEEBdCEDIAIhBQJAA0AgBEEATA0BIAP9AASAgIABIAP9AASQgIAB/WYhCf0MCwEDAwMDAQEBAYERFREFESAJ/QwPDw8PDw8PDw8PDw8PDw8P/U79Dv0MAQGCBAAECBAAAAAAAAAAACAJQQT9bf0O/U4hCkH//wNBASAEdEEBayAEQRBOGyEIIAggCf1kIAr9DH9/f39/f39/f39/f39/f3/9Tv0MAAAAAAAAAAAAAAAAAAAAAP0k/WRycQRAQX8PCyAHIAggCv1kcXIhByAFIAn9CwQAIANBIGohAyAFQRBqIQUgBEEQayEEDAALCyAFIARqIQUgBgRAIAVBJDoAACAFQQFqIQULIAVBgICAgARBACAHG3IL';

/** Where the module keeps the compiler's octets and the units it reads, in bytes. */
export const PATTERN_COPY_SCRATCH = 0;
export const PATTERN_COPY_SCRATCH_BYTES = 2097152;
export const PATTERN_COPY_UNITS = 2097152;

/** The most code units of a text the module reads. */
export const PATTERN_COPY_UNIT_LIMIT = 512000;

/** Octets a copy may write past the end of its pattern. */
export const PATTERN_COPY_SLACK = 16;
