import fc from 'fast-check';
import { DomainError, ValidationError } from '../../../../src/shared/domain/domain-error';
import { CurrencyMismatchError, currencyExponent, formatMinor, Money, normalizeCurrency } from '../../../../src/shared/domain/money';

const amounts = (m: Money[]) => m.map((x) => x.amount);

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

  describe('allocate', () => {
    it('gives remainders one unit at a time to the earliest shares', () => {
      expect(amounts(Money.of(100, 'usd').allocate([1, 1, 1]))).toEqual([34, 33, 33]);
      expect(amounts(Money.of(5, 'usd').allocate([3, 7]))).toEqual([2, 3]);
      expect(amounts(Money.of(-100, 'usd').allocate([1, 1, 1]))).toEqual([-34, -33, -33]);
      expect(amounts(Money.of(2, 'usd').allocate([1, 1, 1]))).toEqual([1, 1, 0]);
    });

    it('never gives anything to a zero ratio', () => {
      expect(amounts(Money.of(10, 'usd').allocate([0, 1, 0, 2]))).toEqual([0, 4, 0, 6]);
      expect(amounts(Money.of(1, 'usd').allocate([0, 1, 1]))).toEqual([0, 1, 0]);
    });

    it.each([[[]], [[0, 0]], [[1, -1]], [[1.5, 1]]])('refuses the ratios %p', (ratios) => {
      expect(() => Money.of(100, 'usd').allocate(ratios)).toThrow(ValidationError);
    });

    it('works with amounts near the safe-integer bound (BigInt inside)', () => {
      const parts = Money.of(Number.MAX_SAFE_INTEGER, 'usd').allocate([1, 2]);
      expect(parts.reduce((s, p) => s + BigInt(p.amount), 0n)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
      expect(amounts(parts)).toEqual([3_002_399_751_580_331, 6_004_799_503_160_660]);
    });

    it('parts always add up to the whole, stay within one unit of the exact share and keep the currency', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }),
          fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }).filter((r) => r.some((x) => x > 0)),
          (amount, ratios) => {
            const parts = Money.of(amount, 'JPY').allocate(ratios);
            const total = ratios.reduce((a, b) => a + b, 0);
            expect(parts).toHaveLength(ratios.length);
            expect(parts.reduce((s, p) => s + p.amount, 0)).toBe(amount);
            parts.forEach((p, i) => {
              expect(p.currency).toBe('jpy');
              const exact = (BigInt(amount) * BigInt(ratios[i])) / BigInt(total); // truncated toward zero
              expect(Math.abs(p.amount - Number(exact))).toBeLessThanOrEqual(1);
              if (ratios[i] === 0) expect(p.amount).toBe(0);
            });
          },
        ),
      );
    });
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
