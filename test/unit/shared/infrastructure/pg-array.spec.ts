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

  it('leaves anything else to node-postgres: other values, and arrays holding dates, buffers or objects', () => {
    const date = [new Date('2026-11-27T10:00:00Z')];
    expect(arrayParameter(date)).toBe(date);
    const mixed = [['a'], [{ a: 1 }]];
    expect(arrayParameter(mixed)).toBe(mixed);
    const buffers = [Buffer.from('x')];
    expect(arrayParameter(buffers)).toBe(buffers);
    expect(arrayParameter('text')).toBe('text');
    expect(arrayParameter(null)).toBe(null);
  });
});
