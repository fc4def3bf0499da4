import { DomainError, ValidationError } from '../../../../src/shared/domain/domain-error';
import { CurrencyMismatchError, currencyExponent, formatMinor, Money, normalizeCurrency } from '../../../../src/shared/domain/money';

describe('Money', () => {
  it('normalises the currency to lowercase and accepts either case', () => {
    expect(Money.of(100, 'USD').currency).toBe('usd');
    expect(Money.of(100, 'usd').equals(Money.of(100, 'UsD'))).toBe(true);
  });

  it.each(['us', 'usdd', '12a', '', 'u$d'])('refuses the currency %p', (currency) => {
    expect(() => Money.of(1, currency)).toThrow(ValidationError);
  });

  it.each(['xyz', 'ABC', 'hrk', 'zwl'])('refuses %p: three letters, but not a code on ISO 4217\'s list (any more)', (currency) => {
    expect(() => normalizeCurrency(currency)).toThrow(ValidationError);
  });

  it.each([['USD', 'usd'], ['zwg', 'zwg'], ['Sle', 'sle'], ['XAU', 'xau']])('accepts %p, on the list', (currency, normalized) => {
    expect(normalizeCurrency(currency)).toBe(normalized);
  });

  it.each([1.5, Number.NaN, Infinity, Number.MAX_SAFE_INTEGER + 1, -Number.MAX_SAFE_INTEGER - 1])('refuses %p minor units', (amount) => {
    expect(() => Money.of(amount, 'usd')).toThrow(ValidationError);
  });

  it('holds the largest safe integers exactly and refuses to overflow them', () => {
    const max = Money.of(Number.MAX_SAFE_INTEGER, 'usd');
    expect(max.amount).toBe(9_007_199_254_740_991);
    expect(() => max.add(Money.of(1, 'usd'))).toThrow(ValidationError);
    expect(() => Money.of(-Number.MAX_SAFE_INTEGER, 'usd').subtract(Money.of(1, 'usd'))).toThrow(ValidationError);
    expect(max.subtract(Money.of(1, 'usd')).amount).toBe(9_007_199_254_740_990);
  });

  it('adds, subtracts, compares and takes the minimum within one currency', () => {
    const a = Money.of(1250, 'eur');
    const b = Money.of(300, 'eur');
    expect(a.add(b).amount).toBe(1550);
    expect(b.subtract(a).amount).toBe(-950);
    expect(b.subtract(a).isNegative()).toBe(true);
    expect(a.compare(b)).toBe(1);
    expect(b.compare(a)).toBe(-1);
    expect(a.compare(Money.of(1250, 'EUR'))).toBe(0);
    expect(a.min(b)).toBe(b);
    expect(Money.zero('eur').isZero()).toBe(true);
    expect(a.isPositive()).toBe(true);
  });

  it('refuses to mix currencies with a validation error naming both', () => {
    const usd = Money.of(100, 'usd');
    const eur = Money.of(100, 'eur');
    for (const op of [() => usd.add(eur), () => usd.subtract(eur), () => usd.compare(eur), () => usd.min(eur)]) {
      expect(op).toThrow(CurrencyMismatchError);
    }
    try {
      usd.add(eur);
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe('validation_failed');
      expect((e as DomainError).errors).toEqual([{ field: 'currency', code: 'currency_mismatch', message: 'expected usd, got eur' }]);
    }
    expect(usd.equals(eur)).toBe(false);
  });

  it('serialises as integer minor units with a lowercase currency', () => {
    expect(JSON.parse(JSON.stringify(Money.of(12550, 'USD')))).toEqual({ amount: 12550, currency: 'usd' });
    expect(Money.of(-123456789, 'usd').toString()).toBe('-1,234,567.89 USD');
  });

  describe('formatting', () => {
    it('uses the currency exponent', () => {
      expect(currencyExponent('JPY')).toBe(0);
      expect(currencyExponent('kwd')).toBe(3);
      expect(currencyExponent('usd')).toBe(2);
      expect(currencyExponent('clf')).toBe(4); // from ISO 4217's list, not a table of our own
      expect(formatMinor(12550, 'usd')).toBe('125.50');
      expect(formatMinor(5, 'usd')).toBe('0.05');
      expect(formatMinor(1234567, 'jpy')).toBe('1,234,567');
      expect(formatMinor(1005, 'kwd')).toBe('1.005');
      expect(formatMinor(-5, 'usd')).toBe('-0.05');
    });

    it('normalizeCurrency refuses non-strings', () => {
      expect(() => normalizeCurrency(42 as unknown as string)).toThrow(ValidationError);
    });
  });
});
