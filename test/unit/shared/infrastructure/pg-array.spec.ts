import { jsonArrayLiteral } from '../../../../src/shared/infrastructure/database/pg-array';
// node-postgres's own serialisation of a parameter (plain CommonJS, no types).
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

describe('jsonArrayLiteral', () => {
  it('writes what node-postgres writes for the array of the values’ JSON texts', () => {
    const values: unknown[] = [
      { object: { id: 'inv_1', name: 'Acme "Tools" \\ GmbH', memo: 'line\none\ttab\r', text: 'über 💶 \u2028', lone: '\ud800x\udfff' }, previous_attributes: { status: 'open' } },
      'a "quoted" string with a \\ backslash',
      42,
      null,
      undefined,
      [],
      {},
      { nested: [{ a: '}{,' }, 'NULL', '"'], at: new Date('2026-11-27T10:00:00.123Z') },
    ];
    expect(jsonArrayLiteral(values)).toBe(prepareValue(values.map((v) => JSON.stringify(v))));
    expect(jsonArrayLiteral([])).toBe(prepareValue([]));
  });
});
