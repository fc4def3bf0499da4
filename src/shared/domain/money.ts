import { data as iso4217 } from 'currency-codes';
import { ValidationError } from './domain-error';
import { Figure } from './figure';

/**
 * ISO 4217's list (the `currency-codes` package, kept current with the published list): the
 * codes a money field accepts, and each one's minor-unit exponent (`digits`).
 */
const ISO_4217 = new Map(iso4217.map((c) => [c.code.toLowerCase(), c.digits]));

/**
 * The largest amount a client may send (contract §1): 10^12 minor units. A document's total stays
 * below 2^53 (its line math refuses more), but sums over a customer's history do not: ten thousand
 * such invoices pass 2^53, so those figures are exact bigints beyond it (shared/domain/figure.ts).
 */
export const MAX_AMOUNT = 1_000_000_000_000;

/** A currency code on ISO 4217's list, normalised to lowercase (the API accepts either case). */
export function normalizeCurrency(value: string): string {
  const code = typeof value === 'string' && value.length === 3 ? value.toLowerCase() : '';
  if (!ISO_4217.has(code)) throw ValidationError.field('currency', 'currency must be a code on ISO 4217\'s list (e.g. usd, eur, jpy)');
  return code;
}

/** Decimal places of the currency's minor unit (2 for a code the list does not have: only stored data could hold one). */
export function currencyExponent(currency: string): number {
  return ISO_4217.get(currency.toLowerCase()) ?? 2;
}

/** Minor units as a decimal string in major units, exactly, per the currency's exponent: 12550 usd -> "125.50", 1250 jpy -> "1250". */
export function toMajorUnits(amount: Figure, currency: string): string {
  const exp = currencyExponent(currency);
  const digits = (amount < 0 ? -amount : amount).toString().padStart(exp + 1, '0');
  const whole = exp === 0 ? digits : digits.slice(0, -exp);
  return `${amount < 0 ? '-' : ''}${whole}${exp === 0 ? '' : `.${digits.slice(-exp)}`}`;
}

/** Formats minor units for people (statements, PDFs): 123456 usd -> "1,234.56". */
export function formatMinor(amount: Figure, currency: string): string {
  return toMajorUnits(amount, currency).replace(/^(-?)(\d+)/, (_m, sign: string, whole: string) => sign + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
}

export class CurrencyMismatchError extends ValidationError {
  constructor(a: string, b: string) {
    super(`Cannot combine ${a} and ${b} amounts.`, [
      { field: 'currency', code: 'currency_mismatch', message: `expected ${a}, got ${b}` },
    ]);
  }
}

function assertMinorUnits(amount: number): void {
  if (!Number.isSafeInteger(amount)) {
    throw ValidationError.field('amount', 'amount must be an integer number of minor units');
  }
}

/**
 * An amount of one currency in integer minor units. JavaScript numbers hold integers
 * exactly up to 2^53 (90 trillion dollars in cents), which is the bound checked here;
 * the database stores them as bigint.
 */
export class Money {
  private constructor(
    readonly amount: number,
    readonly currency: string,
  ) {}

  static of(amount: number, currency: string): Money {
    assertMinorUnits(amount);
    return new Money(amount, normalizeCurrency(currency));
  }

  static zero(currency: string): Money {
    return Money.of(0, currency);
  }

  add(other: Money): Money {
    this.assertSameCurrency(other);
    return Money.of(this.amount + other.amount, this.currency);
  }

  subtract(other: Money): Money {
    this.assertSameCurrency(other);
    return Money.of(this.amount - other.amount, this.currency);
  }

  min(other: Money): Money {
    this.assertSameCurrency(other);
    return this.amount <= other.amount ? this : other;
  }

  compare(other: Money): number {
    this.assertSameCurrency(other);
    return Math.sign(this.amount - other.amount);
  }

  equals(other: Money): boolean {
    return this.currency === other.currency && this.amount === other.amount;
  }

  isZero(): boolean {
    return this.amount === 0;
  }

  isNegative(): boolean {
    return this.amount < 0;
  }

  isPositive(): boolean {
    return this.amount > 0;
  }

  toJSON(): { amount: number; currency: string } {
    return { amount: this.amount, currency: this.currency };
  }

  toString(): string {
    return `${formatMinor(this.amount, this.currency)} ${this.currency.toUpperCase()}`;
  }

  private assertSameCurrency(other: Money): void {
    if (other.currency !== this.currency) throw new CurrencyMismatchError(this.currency, other.currency);
  }
}
