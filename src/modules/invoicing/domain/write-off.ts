/** Why part of an invoice will not be collected (contract §15). */
export const WRITE_OFF_REASONS = ['bad_debt', 'short_pay', 'small_balance', 'other'] as const;
export type WriteOffReason = (typeof WRITE_OFF_REASONS)[number];

export function isWriteOffReason(value: unknown): value is WriteOffReason {
  return typeof value === 'string' && (WRITE_OFF_REASONS as readonly string[]).includes(value);
}

/** One write-off of an invoice: a fact, never changed or removed once written. */
export interface WriteOffSnapshot {
  id: string;
  amount: number;
  reason: WriteOffReason;
  createdAt: Date;
}

export interface WriteOffJson {
  id: string;
  amount: number;
  reason: WriteOffReason;
  created_at: string;
}

export function presentWriteOff(w: WriteOffSnapshot): WriteOffJson {
  return { id: w.id, amount: w.amount, reason: w.reason, created_at: w.createdAt.toISOString() };
}

/**
 * A write-off as the invoicing module's callers ask for it: `POST /invoices/:id/write-off`, and
 * the short-pay tolerance of cash application (§13), which writes off the difference inside the
 * transaction that applied the payment (reason `short_pay`, `settledOn` the payment's date).
 */
export interface WriteOffRequest {
  /** omitted: all of the amount due */
  amount?: number;
  reason: WriteOffReason | string;
  /** the date paid when this write-off settles the invoice (default: the tenant's today) */
  settledOn?: string;
}
