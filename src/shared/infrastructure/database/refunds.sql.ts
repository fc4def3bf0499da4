import { RefundState } from '../../domain/refund';
import { toSafeNumber } from './data-source';
import { UnitOfWork } from './unit-of-work';

/** A refund as the read queries aggregate it: `json_build_array(id, amount::text, reason, created_at)`. */
export type RefundJsonRow = [string, string, string | null, string];

export function refundsFromJson(rows: readonly RefundJsonRow[] | null | undefined): RefundState[] {
  return (rows ?? []).map(([id, amount, reason, createdAt]) => ({ id, amount: toSafeNumber(amount), reason, createdAt: new Date(createdAt) }));
}

/** What a refund is paid out of: a payment's unapplied amount or a credit note's remaining credit. */
export type RefundOwner = { paymentId: string; creditNoteId?: never } | { creditNoteId: string; paymentId?: never };

/**
 * Inserts refunds (facts) of one payment or credit note in one statement. The owner's
 * `amount_refunded` is written by its repository in the same transaction; the guards check at
 * commit that it is the sum of these rows.
 */
export async function insertRefunds(uow: UnitOfWork, tenantId: string, owner: RefundOwner, customerId: string, currency: string, refunds: readonly RefundState[]): Promise<void> {
  if (refunds.length === 0) return;
  await uow.query(
    `INSERT INTO refunds (tenant_id, id, payment_id, credit_note_id, customer_id, currency, amount, reason, created_at)
     SELECT $1, r.id, $2, $3, $4, $5, r.amount, r.reason, r.created_at
       FROM unnest($6::text[], $7::bigint[], $8::text[], $9::timestamptz[]) AS r (id, amount, reason, created_at)`,
    [
      tenantId, owner.paymentId ?? null, owner.creditNoteId ?? null, customerId, currency,
      refunds.map((r) => r.id), refunds.map((r) => r.amount), refunds.map((r) => r.reason), refunds.map((r) => r.createdAt),
    ],
  );
}
