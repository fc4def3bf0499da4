import { fieldOf } from '../../support/validation';
import { LineItemInput } from '../../../src/modules/invoicing';
import { InvoiceMother } from '../../support/mothers/invoice.mother';

function totals(lines: LineItemInput[]) {
  const json = InvoiceMother.create({ lineItems: lines }).toJSON('2026-03-15');
  return {
    lines: json.line_items.map((l) => ({ amount: l.amount, tax_amount: l.tax_amount })),
    subtotal: json.subtotal,
    discount_total: json.discount_total,
    tax_total: json.tax_total,
    total: json.total,
  };
}

describe('invoice line math (contract §7)', () => {
  it('rounds quantity × unit_amount half up, then taxes the discounted amount half up', () => {
    // 1.5 × 333 = 499.5 → 500; 500 − 10 = 490; 490 × 8.25% = 40.425 → 40
    expect(totals([{ description: 'a', quantity: 1.5, unit_amount: 333, discount_amount: 10, tax_rate: 8.25 }])).toEqual({
      lines: [{ amount: 490, tax_amount: 40 }],
      subtotal: 500,
      discount_total: 10,
      tax_total: 40,
      total: 530,
    });
  });

  it.each([
    [0.5, 1, 1], // exactly half rounds up
    [2.5, 1, 3], // half up, not half to even
    [1.005, 100, 101], // 1.005 × 100 is 100.49999… in floating point; exact math gives 100.5 → 101
    [0.0001, 10000, 1], // smallest quantity step
    [0.3333, 3, 1], // 0.9999 → 1
    [1.0004, 1, 1], // 1.0004 → 1
    [3, 333, 999],
  ])('quantity %p × %p = %p', (quantity, unitAmount, gross) => {
    expect(totals([{ description: 'a', quantity, unit_amount: unitAmount }]).subtotal).toBe(gross);
  });

  it.each([
    [10000, 7.1234, 712], // 712.34
    [100, 0.5, 1], // 0.5 → 1 (half up)
    [100, 0.4999, 0], // 0.4999 → 0
    [201, 0.25, 1], // 0.5025 → 1
    [199, 0.25, 0], // 0.4975 → 0
    [12345, 100, 12345],
    [12345, 0, 0],
  ])('tax on %p at %p%% = %p', (amount, rate, tax) => {
    expect(totals([{ description: 'a', quantity: 1, unit_amount: amount, tax_rate: rate }]).tax_total).toBe(tax);
  });

  it('sums several lines: subtotal of gross amounts, minus discounts, plus taxes', () => {
    const t = totals([
      { description: 'a', quantity: 2, unit_amount: 1999, discount_amount: 0, tax_rate: 10 }, // 3998, tax 399.8 → 400
      { description: 'b', quantity: 0.75, unit_amount: 1001, discount_amount: 51, tax_rate: 20 }, // 750.75 → 751; 700; tax 140
      { description: 'c', quantity: 1, unit_amount: 0 },
    ]);
    expect(t).toEqual({
      lines: [
        { amount: 3998, tax_amount: 400 },
        { amount: 700, tax_amount: 140 },
        { amount: 0, tax_amount: 0 },
      ],
      subtotal: 4749,
      discount_total: 51,
      tax_total: 540,
      total: 4749 - 51 + 540,
    });
  });

  it('allows a discount equal to the gross amount and refuses one above it', () => {
    expect(totals([{ description: 'a', quantity: 1.5, unit_amount: 333, discount_amount: 500 }]).total).toBe(0);
    expect(fieldOf(() => totals([{ description: 'a', quantity: 1.5, unit_amount: 333, discount_amount: 501 }]))).toBe('line_items[0].discount_amount');
  });

  it('keeps quantity and tax rate exact in the response', () => {
    const json = InvoiceMother.create({ lineItems: [{ description: 'a', quantity: 123456789.1234, unit_amount: 1, tax_rate: 99.9999 }] }).toJSON('2026-03-15');
    expect(json.line_items[0]).toMatchObject({ quantity: 123456789.1234, tax_rate: 99.9999, amount: 123456789 });
    // 123456789 × 99.9999 / 100 = 123456665.543211 → 123456666
    expect(json.line_items[0].tax_amount).toBe(123456666);
  });

  it.each<[string, Partial<LineItemInput>, string]>([
    ['zero quantity', { quantity: 0 }, 'line_items[0].quantity'],
    ['negative quantity', { quantity: -1 }, 'line_items[0].quantity'],
    ['five decimals of quantity', { quantity: 1.00001 }, 'line_items[0].quantity'],
    ['a quantity in exponent form', { quantity: 1e-7 }, 'line_items[0].quantity'],
    ['five decimals of tax rate', { tax_rate: 8.00001 }, 'line_items[0].tax_rate'],
    ['a tax rate above 100', { tax_rate: 100.0001 }, 'line_items[0].tax_rate'],
    ['a negative tax rate', { tax_rate: -1 }, 'line_items[0].tax_rate'],
    ['a fractional unit amount', { unit_amount: 10.5 }, 'line_items[0].unit_amount'],
    ['a negative unit amount', { unit_amount: -1 }, 'line_items[0].unit_amount'],
    ['a negative discount', { discount_amount: -1 }, 'line_items[0].discount_amount'],
    ['an empty description', { description: '  ' }, 'line_items[0].description'],
    ['an amount beyond 2^53', { quantity: 3, unit_amount: Number.MAX_SAFE_INTEGER }, 'line_items[0].unit_amount'],
  ])('refuses %s (400 on the field)', (_, line, field) => {
    expect(fieldOf(() => InvoiceMother.create({ lineItems: [InvoiceMother.line(line)] }))).toBe(field);
  });

  it('names the offending line in the error', () => {
    expect(fieldOf(() => InvoiceMother.create({ lineItems: [InvoiceMother.line(), InvoiceMother.line({ quantity: 0 })] }))).toBe('line_items[1].quantity');
  });

  it('refuses an invoice without lines', () => {
    expect(fieldOf(() => InvoiceMother.create({ lineItems: [] }))).toBe('line_items');
  });
});
