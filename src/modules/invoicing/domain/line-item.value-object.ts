import { DECIMAL_SCALE, divideRoundHalfUp, parseScaled } from '../../../shared/domain/decimal';
import { ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';

/** A line as a client sends it; `quantity` and `tax_rate` are decimals with at most 4 places. */
export interface LineItemInput {
  id?: string;
  description: string;
  quantity: number | string;
  unit_amount: number;
  discount_amount?: number;
  tax_rate?: number | string;
}

/** A line as stored: decimals as canonical strings so they survive JSON without floats. */
export interface LineItemSnapshot {
  id: string;
  description: string;
  quantity: string;
  unit_amount: number;
  discount_amount: number;
  tax_rate: string;
  /** round_half_up(quantity x unit_amount), kept for subtotal */
  gross_amount: number;
  amount: number;
  tax_amount: number;
}

export interface LineItemJson {
  id: string;
  description: string;
  quantity: number;
  unit_amount: number;
  discount_amount: number;
  tax_rate: number;
  amount: number;
  tax_amount: number;
}

const MAX_DESCRIPTION = 500;
const HUNDRED_PERCENT = 100n * DECIMAL_SCALE;
/** Keeps quantities exact as JSON numbers in responses (13 significant digits at most). */
const MAX_QUANTITY = 1_000_000_000n * DECIMAL_SCALE;

function safe(value: bigint, field: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw ValidationError.field(field, `${field} is too large`);
  return n;
}

/** Exact decimal text of a non-negative scaled value (1.5 -> "1.5"). */
function scaledToString(scaled: bigint): string {
  const whole = scaled / DECIMAL_SCALE;
  const frac = (scaled % DECIMAL_SCALE).toString().padStart(4, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * One invoice line (contract §7). All math is integer: quantity and tax rate are scaled by
 * 10^4 and multiplied as BigInt, then rounded half up once per step, so results never
 * depend on floating point.
 */
export class LineItem {
  private constructor(readonly snapshot: LineItemSnapshot) {}

  /** `path` names the line in errors, e.g. `line_items[2]`. */
  static create(input: LineItemInput, path: string, keepId?: string): LineItem {
    if (input === null || typeof input !== 'object') throw ValidationError.field(path, `${path} must be an object`);
    const description = typeof input.description === 'string' ? input.description.trim() : '';
    if (!description || description.length > MAX_DESCRIPTION) {
      throw ValidationError.field(`${path}.description`, `${path}.description must be 1 to ${MAX_DESCRIPTION} characters`);
    }
    const quantity = parseScaled(input.quantity as number | string, `${path}.quantity`);
    if (quantity <= 0n || quantity > MAX_QUANTITY) {
      throw ValidationError.field(`${path}.quantity`, `${path}.quantity must be greater than 0 and at most 1000000000`);
    }
    const unitAmount = input.unit_amount;
    if (!Number.isSafeInteger(unitAmount) || unitAmount < 0) {
      throw ValidationError.field(`${path}.unit_amount`, `${path}.unit_amount must be a non-negative integer in minor units`);
    }
    const discount = input.discount_amount ?? 0;
    if (!Number.isSafeInteger(discount) || discount < 0) {
      throw ValidationError.field(`${path}.discount_amount`, `${path}.discount_amount must be a non-negative integer in minor units`);
    }
    const taxRate = parseScaled(input.tax_rate ?? 0, `${path}.tax_rate`);
    if (taxRate < 0n || taxRate > HUNDRED_PERCENT) {
      throw ValidationError.field(`${path}.tax_rate`, `${path}.tax_rate must be between 0 and 100`);
    }

    const gross = divideRoundHalfUp(quantity * BigInt(unitAmount), DECIMAL_SCALE);
    if (BigInt(discount) > gross) {
      throw ValidationError.field(`${path}.discount_amount`, `${path}.discount_amount must not exceed the line's gross amount (${gross})`);
    }
    const amount = gross - BigInt(discount);
    const tax = divideRoundHalfUp(amount * taxRate, HUNDRED_PERCENT);
    return new LineItem({
      id: keepId ?? newId('li'),
      description,
      quantity: scaledToString(quantity),
      unit_amount: unitAmount,
      discount_amount: discount,
      tax_rate: scaledToString(taxRate),
      gross_amount: safe(gross, `${path}.unit_amount`),
      amount: safe(amount, `${path}.unit_amount`),
      tax_amount: safe(tax, `${path}.unit_amount`),
    });
  }

  static restore(snapshot: LineItemSnapshot): LineItem {
    return new LineItem({ ...snapshot });
  }

  static toJson(s: LineItemSnapshot): LineItemJson {
    return {
      id: s.id,
      description: s.description,
      quantity: Number(s.quantity),
      unit_amount: s.unit_amount,
      discount_amount: s.discount_amount,
      tax_rate: Number(s.tax_rate),
      amount: s.amount,
      tax_amount: s.tax_amount,
    };
  }
}

export interface InvoiceTotals {
  subtotal: number;
  discount_total: number;
  tax_total: number;
  total: number;
}

/** Per-invoice sums (contract §7): subtotal of gross amounts, minus discounts, plus taxes. */
export function totalsOf(lines: readonly LineItemSnapshot[]): InvoiceTotals {
  let subtotal = 0n;
  let discount = 0n;
  let tax = 0n;
  for (const l of lines) {
    subtotal += BigInt(l.gross_amount);
    discount += BigInt(l.discount_amount);
    tax += BigInt(l.tax_amount);
  }
  return {
    subtotal: safe(subtotal, 'line_items'),
    discount_total: safe(discount, 'line_items'),
    tax_total: safe(tax, 'line_items'),
    total: safe(subtotal - discount + tax, 'line_items'),
  };
}
