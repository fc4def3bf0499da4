import { arrayParameter } from '../../../../src/shared/infrastructure/database/pg-array';
// node-postgres's own serialisation of a parameter (plain CommonJS, no types).
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

describe('arrayParameter', () => {
  it('writes arrays of strings, numbers, booleans and nulls as node-postgres writes them', () => {
    const arrays: unknown[][] = [
      ['inv_01jc9x7m3ef0ab6yr2t0n4q8zd', 'a "quoted" \\ text', 'NULL', '', '}{,', 'über 💶', 'line\none'],
      [1, -2.5, 0, 1e21, Number.MAX_SAFE_INTEGER, NaN],
      [true, false, null, undefined],
      [BigInt('9007199254740993')],
      [['a', null], ['b"', '\\']],
      [],
    ];
    for (const a of arrays) expect(arrayParameter(a)).toBe(prepareValue(a));
  });

  it('writes arrays of dates as node-postgres writes them, an instant repeated or not (ADR 0058)', () => {
    const at = new Date('2026-11-27T10:00:00.123Z');
    const arrays: unknown[][] = [
      [at, at, new Date(at.getTime()), new Date('2026-11-27T10:00:00.124Z'), at, null, new Date('1999-12-31T23:59:59Z')],
      [new Date('0000-06-01T00:00:00Z'), new Date(-62198755200000)], // BC years
      [[at, null], [new Date(0)]],
      [new Date(0), 'text'],
    ];
    for (const a of arrays) {
      const literal = arrayParameter(a);
      expect(typeof literal).toBe('string');
      expect(literal).toBe(prepareValue(a));
    }
  });

  it('leaves anything else to node-postgres: other values, and arrays holding buffers or objects', () => {
    const mixed = [['a'], [{ a: 1 }]];
    expect(arrayParameter(mixed)).toBe(mixed);
    const buffers = [Buffer.from('x')];
    expect(arrayParameter(buffers)).toBe(buffers);
    expect(arrayParameter('text')).toBe('text');
    expect(arrayParameter(null)).toBe(null);
  });
});
