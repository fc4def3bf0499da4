import { fieldOf } from '../../support/validation';
import { InvalidStateError } from '../../../src/shared/domain/domain-error';
import { Customer } from '../../../src/modules/customers';

const NOW = new Date('2026-03-15T12:00:00Z');

describe('Customer', () => {
  it('normalises and defaults what it is created with', () => {
    const c = Customer.create('ten_1', { name: ' Acme ', currency: 'EUR', billing_address: { country: 'de', city: 'Berlin' } }, NOW).toSnapshot();
    expect(c).toMatchObject({
      name: 'Acme',
      currency: 'eur',
      paymentTermsDays: 30,
      creditLimit: null,
      creditHold: false,
      billingAddress: { line1: null, line2: null, city: 'Berlin', region: null, postal_code: null, country: 'DE' },
      version: 1,
    });
    expect(c.id).toMatch(/^cus_/);
  });

  it.each([
    [{ currency: 'usd' }, 'name'],
    [{ name: 'A' }, 'currency'],
    [{ name: 'A', currency: 'dollars' }, 'currency'],
    [{ name: 'A', currency: 'usd', email: 'not-an-email' }, 'email'],
    [{ name: 'A', currency: 'usd', payment_terms_days: -1 }, 'payment_terms_days'],
    [{ name: 'A', currency: 'usd', payment_terms_days: 366 }, 'payment_terms_days'],
    [{ name: 'A', currency: 'usd', credit_limit: -1 }, 'credit_limit'],
    [{ name: 'A', currency: 'usd', credit_limit: 1.5 }, 'credit_limit'],
    [{ name: 'A', currency: 'usd', billing_address: { country: 'Germany' } }, 'billing_address.country'],
  ])('refuses %p (400 on %s)', (input, field) => {
    expect(fieldOf(() => Customer.create('ten_1', input, NOW))).toBe(field);
  });

  it('updates only what is sent, bumping the version once, and clears nullable fields with null', () => {
    const c = Customer.create('ten_1', { name: 'A', currency: 'usd', email: 'a@b.co', credit_limit: 100 }, NOW);
    const restored = Customer.restore(c.toSnapshot());
    restored.update({ email: null, credit_limit: null, credit_hold: true }, NOW, false);
    expect(restored.toSnapshot()).toMatchObject({ name: 'A', email: null, creditLimit: null, creditHold: true, version: 2 });
    restored.update({ name: 'B' }, NOW, false);
    expect(restored.version).toBe(2);
  });

  it('keeps its currency once it has activity (409) but accepts the same currency in another case', () => {
    const c = Customer.restore(Customer.create('ten_1', { name: 'A', currency: 'usd' }, NOW).toSnapshot());
    expect(() => c.update({ currency: 'eur' }, NOW, false)).toThrow(InvalidStateError);
    c.update({ currency: 'USD' }, NOW, false);
    expect(c.isChanged).toBe(false);
    c.update({ currency: 'eur' }, NOW, true);
    expect(c.currency).toBe('eur');
  });
});
