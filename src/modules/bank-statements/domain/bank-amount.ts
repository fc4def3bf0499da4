import { isDateString } from '../../../shared/domain/clock';
import { currencyExponent, normalizeCurrency } from '../../../shared/domain/money';
import { BankEntryError } from './bank-entry';

/** Contract §1: no single amount a client sends exceeds 10^12 minor units; a bank file is no exception. */
export const MAX_ENTRY_AMOUNT = 1_000_000_000_000;

/**
 * A decimal amount as banks write it ("1250.50", MT940's "1250,5", "1250,") to integer minor
 * units of `currency`, exactly (no floating point). Digits beyond the currency's exponent must be
 * zeros: "12.345" USD is a bad entry, never silently rounded.
 */
export function decimalToMinor(text: string, currency: string, separator: '.' | ',' = '.'): number {
  const raw = text.trim();
  const match = (separator === '.' ? DECIMAL_POINT : DECIMAL_COMMA).exec(raw);
  if (!match) throw new BankEntryError('invalid_amount', `amount "${raw.slice(0, 40)}" is not a decimal number`);
  const exponent = currencyExponent(currency);
  const [, whole, fraction = ''] = match;
  const kept = fraction.slice(0, exponent);
  if (/[^0]/.test(fraction.slice(exponent))) {
    throw new BankEntryError('invalid_amount', `amount ${raw} has more decimals than ${currency.toUpperCase()} allows (${exponent})`);
  }
  // Up to 12 whole digits and 3 decimals stay below 2^53: exact as a number (one per entry of a
  // 100,000-entry file; BigInt only for the longer ones, which are all refused as too large).
  if (whole.length <= 12 && exponent <= 3) return boundedNumber(Number(whole) * 10 ** exponent + Number(kept.padEnd(exponent, '0') || '0'));
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(kept.padEnd(exponent, '0') || '0');
  return boundedAmount(minor);
}

const DECIMAL_POINT = /^(\d{1,15})(?:\.(\d*))?$/;
const DECIMAL_COMMA = /^(\d{1,15})(?:,(\d*))?$/;

function boundedNumber(minor: number): number {
  if (minor <= 0) throw new BankEntryError('invalid_amount', 'amount must be greater than zero');
  if (minor > MAX_ENTRY_AMOUNT) throw new BankEntryError('amount_too_large', `amount exceeds ${MAX_ENTRY_AMOUNT} minor units`);
  return minor;
}

/** An integer amount already in minor units (BAI2), bounded like every other. */
export function integerToMinor(text: string): number {
  const raw = text.trim();
  if (!/^\d{1,15}$/.test(raw)) throw new BankEntryError('invalid_amount', `amount "${raw.slice(0, 40)}" is not a whole number of minor units`);
  return boundedAmount(BigInt(raw));
}

function boundedAmount(minor: bigint): number {
  if (minor <= 0n) throw new BankEntryError('invalid_amount', 'amount must be greater than zero');
  if (minor > BigInt(MAX_ENTRY_AMOUNT)) throw new BankEntryError('amount_too_large', `amount exceeds ${MAX_ENTRY_AMOUNT} minor units`);
  return Number(minor);
}

/** An ISO 4217 code as the API takes it (normalizeCurrency), lowercase; else a bad entry. */
export function bankCurrency(text: string | null | undefined): string {
  const code = (text ?? '').trim();
  try {
    return normalizeCurrency(code);
  } catch {
    throw new BankEntryError('invalid_currency', `currency "${code.slice(0, 10)}" is not an ISO 4217 code`);
  }
}

/** A calendar date from YYYY-MM-DD (camt, CSV) or a date-time whose date part is taken as written. */
export function isoDate(text: string | null | undefined, what = 'booking date'): string {
  const date = (text ?? '').trim().slice(0, 10);
  if (!isDateString(date)) throw new BankEntryError('invalid_date', `${what} "${(text ?? '').trim().slice(0, 30)}" is not a date (YYYY-MM-DD)`);
  return date;
}

/** A date from YYMMDD (BAI2, MT940); two-digit years are 20xx, as every bank file written today means. */
export function yymmddDate(text: string, what = 'date'): string {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(text.trim());
  const date = m ? `20${m[1]}-${m[2]}-${m[3]}` : '';
  if (!isDateString(date)) throw new BankEntryError('invalid_date', `${what} "${text.trim().slice(0, 12)}" is not a date (YYMMDD)`);
  return date;
}
