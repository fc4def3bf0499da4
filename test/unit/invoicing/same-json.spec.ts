import { sameJson } from '../../../src/modules/invoicing/domain/invoice.aggregate';

describe('sameJson (what an invoice change compares before writing values out as JSON)', () => {
  const line = () => ({ id: 'li_1', description: 'Work', quantity: 1, unit_amount: 500, amount: 500, tax: null });
  it.each([
    ['the same primitive', 'open', 'open'],
    ['equal lists of equal objects', [line(), line()], [line(), line()]],
    ['equal nested objects', { id: 'cus_1', name: 'Acme', meta: { a: [1, 2] } }, { id: 'cus_1', name: 'Acme', meta: { a: [1, 2] } }],
    ['two nulls', null, null],
  ])('%s: true, and the JSON texts are equal', (_name, a, b) => {
    expect(sameJson(a, b)).toBe(true);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
  it.each([
    ['different primitives', 'open', 'paid'],
    ['a changed line', [line()], [{ ...line(), amount: 400 }]],
    ['one more line', [line()], [line(), line()]],
    ['keys in another order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    ['an object and null', { a: 1 }, null],
    ['a list and an object', [], {}],
  ])('%s: false', (_name, a, b) => expect(sameJson(a, b)).toBe(false));
  it('is never true where the JSON texts differ, whatever it is given', () => {
    const values: unknown[] = [0, -0, 1, NaN, null, undefined, '', 'x', [], [undefined], [null], {}, { a: undefined }, { a: 1 }, { a: [1] }, new Date(0), new Date(0)];
    for (const a of values) for (const b of values) if (sameJson(a, b)) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
