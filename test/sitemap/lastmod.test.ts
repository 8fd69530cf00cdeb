import { afterEach, describe, expect, it } from 'vitest';
import { parseLastmod, parseSince } from '../../src/sitemap/filter.js';

const iso = (value: string) => {
  const time = parseLastmod(value);
  return time === undefined ? undefined : new Date(time).toISOString();
};

describe('parseLastmod', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it.each([
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['2024-05', '2024-05-01T00:00:00.000Z'],
    ['2024-05-17', '2024-05-17T00:00:00.000Z'],
    ['2024-05-17T10:00Z', '2024-05-17T10:00:00.000Z'],
    ['2024-05-17T10:00:00.5+02:00', '2024-05-17T08:00:00.500Z'],
    ['2024-05-17T10:00:00-05:30', '2024-05-17T15:30:00.000Z'],
    // Seen in the wild: a space for T, an offset without its colon, padding.
    ['2024-05-17 10:00:00', '2024-05-17T10:00:00.000Z'],
    ['2024-05-17T10:00:00+0200', '2024-05-17T08:00:00.000Z'],
    ['  2024-05-17\n', '2024-05-17T00:00:00.000Z'],
    ['2023-12-31T23:59:60Z', '2023-12-31T23:59:59.000Z'],
    // RSS pubDate (RFC 822 / 1123).
    ['Tue, 05 Mar 2024 10:00:00 GMT', '2024-03-05T10:00:00.000Z'],
    ['Tue, 05 Mar 2024 10:00:00 +0000', '2024-03-05T10:00:00.000Z'],
    ['5 Mar 24 10:00 +0100', '2024-03-05T09:00:00.000Z'],
    ['Tue, 05 Mar 2024 10:00:00 EST', '2024-03-05T15:00:00.000Z'],
    // Four digits are the year as written, even below 100.
    ['0099-12-31', '0099-12-31T00:00:00.000Z'],
    ['0004-02-29', '0004-02-29T00:00:00.000Z'],
  ])('reads %j as %s', (value, expected) => {
    expect(iso(value)).toBe(expected);
  });

  it.each([
    '1',
    'Rev 3',
    'N/A 1',
    'yesterday',
    '',
    '2024-02-30',
    '2023-02-29',
    '0003-02-29',
    '2024-13-01',
    '2024-05-17T25:00Z',
    '2024-05-17T10:61Z',
    '2024-05-17T10:00+24:00',
    'Tue, 05 Mar 2024 10:00:00 XYZ',
    '05 Foo 2024 10:00:00 GMT',
  ])('finds no date in %j (the entry counts as undated)', (value) => {
    expect(parseLastmod(value)).toBeUndefined();
  });

  it.each([5, null, undefined, new Date(0)])('refuses %j, which is no text to read', (value) => {
    expect(() => parseLastmod(value as never)).toThrow(TypeError);
    expect(() => parseLastmod(value as never)).toThrow(/^parseLastmod\(\) takes a string, got /);
  });

  it('reads a time without a zone as UTC, whatever the time zone of the machine', () => {
    process.env.TZ = 'America/New_York';
    expect(iso('2024-01-01T02:00:00')).toBe('2024-01-01T02:00:00.000Z');
    expect(iso('Mon, 01 Jan 2024 02:00:00')).toBe('2024-01-01T02:00:00.000Z');
    process.env.TZ = 'Asia/Tokyo';
    expect(iso('2024-01-01T02:00:00')).toBe('2024-01-01T02:00:00.000Z');
  });
});

describe('parseSince', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it.each(['UTC', 'America/New_York', 'Asia/Tokyo'])(
    'reads a date-time without a zone as UTC, as lastmod values are, in %s',
    (timeZone) => {
      process.env.TZ = timeZone;
      expect(parseSince('2024-05-17T11:00:00')).toBe(Date.UTC(2024, 4, 17, 11));
      expect(parseSince('2024-05-17')).toBe(Date.UTC(2024, 4, 17));
      expect(parseSince('2024-05-17T11:00:00+02:00')).toBe(Date.UTC(2024, 4, 17, 9));
    },
  );

  it('reads Dates, times in ms and other dates Date.parse knows; refuses anything else', () => {
    expect(parseSince(new Date('2024-05-17T11:00:00Z'))).toBe(Date.UTC(2024, 4, 17, 11));
    expect(parseSince(0)).toBe(0);
    expect(parseSince('May 17, 2024 11:00 UTC')).toBe(Date.UTC(2024, 4, 17, 11));
    expect(() => parseSince('soon')).toThrow(
      'seed() option modifiedSince must be a Date, a time in ms or an ISO 8601 date, got "soon".',
    );
  });
});
