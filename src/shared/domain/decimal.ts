import { ValidationError } from './domain-error';

/**
 * Exact arithmetic for the few decimal inputs on the money path (`quantity`, `tax_rate`):
 * JSON numbers with at most 4 decimal places, scaled to integers (x 10^4) and computed
 * with BigInt, so no floating point ever touches an amount.
 */
export const DECIMAL_SCALE = 10_000n;

/** Parses a JSON number (or numeric string) with at most 4 decimals into units of 1/10^4. */
export function parseScaled(value: number | string, field: string): bigint {
  const text = typeof value === 'number' ? numberToPlainString(value) : String(value).trim();
  const match = /^(-?)(\d+)(?:\.(\d{1,4}))?$/.exec(text);
  if (!match) {
    throw ValidationError.field(field, `${field} must be a number with at most 4 decimal places`);
  }
  const [, sign, whole, frac = ''] = match;
  const scaled = BigInt(whole) * DECIMAL_SCALE + BigInt(frac.padEnd(4, '0'));
  return sign === '-' ? -scaled : scaled;
}

/** Back to a JSON number for responses (exact for 4 decimals within the safe range). */
export function scaledToNumber(scaled: bigint): number {
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  const whole = abs / DECIMAL_SCALE;
  const frac = (abs % DECIMAL_SCALE).toString().padStart(4, '0').replace(/0+$/, '');
  return Number(`${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`);
}

/** numerator / denominator rounded half away from zero (commercial rounding). */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  const q = (abs * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) return 'NaN';
  // Numbers like 1e-7 print in exponent form; toFixed(10) exposes them as having too many decimals.
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(10).replace(/\.?0+$/, '') : text;
}
