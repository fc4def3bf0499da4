import { ConflictError, ValidationError } from './domain-error';
import { newId } from './ids';

/**
 * Money paid back to a customer out of what a payment has unapplied or a credit note has
 * remaining (contract §15): a fact, never changed or reversed. Payments and credit notes both
 * hold refunds, so the shape lives in the shared kernel.
 */
export interface RefundState {
  id: string;
  amount: number;
  reason: string | null;
  createdAt: Date;
}

export interface RefundJson {
  id: string;
  amount: number;
  reason: string | null;
  created_at: string;
}

export const MAX_REFUND_REASON = 500;

export function presentRefund(r: RefundState): RefundJson {
  return { id: r.id, amount: r.amount, reason: r.reason, created_at: r.createdAt.toISOString() };
}

/** A new refund of `amount`, at most `available` (409 beyond: only what is unapplied or remaining can go back). */
export function newRefund(amount: number, reason: string | null | undefined, available: number, what: string, at: Date): RefundState {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw ValidationError.field('amount', 'amount must be a positive integer in minor units');
  const text = typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : null;
  if (text && text.length > MAX_REFUND_REASON) throw ValidationError.field('reason', `reason must be at most ${MAX_REFUND_REASON} characters`);
  if (amount > available) throw new ConflictError(`${what} has ${available} left to refund; ${amount} cannot be refunded.`);
  return { id: newId('ref'), amount, reason: text, createdAt: at };
}

export function sumRefunds(refunds: readonly RefundState[]): number {
  return refunds.reduce((sum, r) => sum + r.amount, 0);
}
