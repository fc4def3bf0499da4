import fc from 'fast-check';
import { DECIMAL_SCALE, divideRoundHalfUp, parseScaled, scaledToNumber } from '../../../../src/shared/domain/decimal';
import { ValidationError } from '../../../../src/shared/domain/domain-error';

describe('decimal', () => {
  describe('parseScaled', () => {
    it.each<[number | string, bigint]>([
      [0, 0n],
      [1, 10_000n],
      [2.5, 25_000n],
      [0.0001, 1n],
      [19.99, 199_900n],
      [-3.25, -32_500n],
      ['1.2345', 12_345n],
      [' 7.5 ', 75_000n],
      ['-0.0001', -1n],
      ['0010', 100_000n],
      [1e-4, 1n],
      [123456789012, 1_234_567_890_120_000n],
    ])('%p -> %p ten-thousandths', (input, expected) => {
      expect(parseScaled(input, 'quantity')).toBe(expected);
    });

    it.each<number | string>([1.23456, 0.00001, 1e-7, '1.23456', 'abc', '', '1.', '.5', '+1', '1e3', '1,5', '0x10', NaN, Infinity, -Infinity, 0.1 + 0.2])(
      'refuses %p and names the field',
      (input) => {
        let error: unknown;
        try {
          parseScaled(input, 'tax_rate');
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).errors?.[0].field).toBe('tax_rate');
      },
    );

    it('round-trips every 4-decimal value in the safe range through scaledToNumber', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(2n ** 48n), max: 2n ** 48n }), (scaled) => {
          const asNumber = scaledToNumber(scaled);
          expect(parseScaled(asNumber, 'x')).toBe(scaled);
          expect(parseScaled(String(asNumber), 'x')).toBe(scaled);
        }),
      );
    });
  });

  describe('scaledToNumber', () => {
    it('drops trailing zeros and keeps the sign', () => {
      expect(scaledToNumber(25_000n)).toBe(2.5);
      expect(scaledToNumber(-1n)).toBe(-0.0001);
      expect(scaledToNumber(-5_000n)).toBe(-0.5);
      expect(scaledToNumber(0n)).toBe(0);
      expect(scaledToNumber(10_000n * 1000n)).toBe(1000);
    });
  });

  describe('divideRoundHalfUp', () => {
    it.each<[bigint, bigint, bigint]>([
      [5n, 10n, 1n], // 0.5 -> 1
      [4n, 10n, 0n],
      [15n, 10n, 2n], // 1.5 -> 2
      [25n, 10n, 3n], // half away from zero, not to even
      [14n, 10n, 1n],
      [-5n, 10n, -1n], // -0.5 -> -1
      [-4n, 10n, 0n],
      [-15n, 10n, -2n],
      [-16n, 10n, -2n],
      [0n, 7n, 0n],
      [7n, 1n, 7n],
      [2n, 3n, 1n],
      [-2n, 3n, -1n],
      [1n, 3n, 0n],
    ])('%p / %p = %p', (n, d, q) => {
      expect(divideRoundHalfUp(n, d)).toBe(q);
    });

    it('computes a line total exactly: 3 x 19.99 at 8.25% tax', () => {
      const quantity = parseScaled(3, 'quantity');
      const net = divideRoundHalfUp(quantity * 1999n, DECIMAL_SCALE); // unit price in cents
      expect(net).toBe(5997n);
      expect(divideRoundHalfUp(net * parseScaled(8.25, 'tax_rate'), 100n * DECIMAL_SCALE)).toBe(495n); // 494.75 -> 495
    });

    it.each([0n, -1n])('refuses the denominator %p', (d) => {
      expect(() => divideRoundHalfUp(1n, d)).toThrow(RangeError);
    });

    it('is the nearest integer, ties away from zero, and symmetric in sign', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
          const q = divideRoundHalfUp(n, d);
          const twiceError = 2n * (n - q * d); // 2 * (exact - q) * d
          const abs = twiceError < 0n ? -twiceError : twiceError;
          expect(abs <= d).toBe(true);
          if (abs === d) expect(q === 0n ? false : q > 0n === n > 0n && (q * d > n) === n > 0n).toBe(true);
          expect(divideRoundHalfUp(-n, d)).toBe(-q);
        }),
      );
    });
  });
});
