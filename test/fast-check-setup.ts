import fc from 'fast-check';

/*
 * fast-check's default size makes an array of at most `2 * minLength + 10` elements, and a
 * regular expression's `{0,300}` at most 10 repetitions, whatever larger bound a test writes.
 * With this base size the bounds the tests write are the ones they explore: `maxLength: 600`
 * reaches 600 bytes, not 10. A failure still shrinks, for 50 s at most: a counterexample of
 * thousands of characters could take an hour to shrink all the way.
 */
fc.configureGlobal({ baseSize: 'large', interruptAfterTimeLimit: 50_000, markInterruptAsFailure: true });
