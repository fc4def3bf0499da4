import { presentRefund, RefundJson, RefundState, sumRefunds } from '../../../shared/domain/refund';
import { LineItem, LineItemJson, LineItemSnapshot } from '../../invoicing';

export const CREDIT_NOTE_STATUSES = ['open', 'partially_applied', 'applied', 'void'] as const;
export type CreditNoteStatus = (typeof CREDIT_NOTE_STATUSES)[number];
export const CREDIT_NOTE_REASONS = ['duplicate', 'product_unsatisfactory', 'order_change', 'discount', 'other'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];

/** Part of a credit note applied to one invoice: a fact, never changed or reversed. */
export interface CreditApplicationState {
  id: string;
  invoiceId: string;
  amount: number;
  appliedAt: Date;
}

/**
 * Everything persisted about a credit note, as plain data: the aggregate wraps it, the
 * repository maps rows to it, and queries present it with `presentCreditNote`, so events and
 * GET responses share one representation.
 */
export interface CreditNoteSnapshot {
  tenantId: string;
  id: string;
  number: string;
  customerId: string;
  /** the invoice it was issued for, if any */
  invoiceId: string | null;
  currency: string;
  amount: number;
  reason: CreditNoteReason;
  memo: string | null;
  /** the lines it was created with; empty when it was created with an amount */
  lineItems: LineItemSnapshot[];
  applications: CreditApplicationState[];
  /** what was paid back out of the remaining credit */
  refunds: RefundState[];
  voidedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreditNoteJson {
  id: string;
  number: string;
  customer_id: string;
  invoice_id: string | null;
  status: CreditNoteStatus;
  currency: string;
  amount: number;
  amount_applied: number;
  amount_refunded: number;
  amount_remaining: number;
  applications: { id: string; invoice_id: string; amount: number; applied_at: string }[];
  refunds: RefundJson[];
  reason: CreditNoteReason;
  memo: string | null;
  line_items: LineItemJson[];
  voided_at: string | null;
  created_at: string;
  updated_at: string;
}

export function amountAppliedOf(s: Pick<CreditNoteSnapshot, 'applications'>): number {
  return s.applications.reduce((sum, a) => sum + a.amount, 0);
}

/**
 * Void once voided; otherwise what is left decides: nothing used yet — open; nothing left —
 * applied; in between — partially applied (a refund uses credit as an application does).
 */
export function creditNoteStatusOf(s: Pick<CreditNoteSnapshot, 'voidedAt' | 'amount' | 'refunds' | 'applications'>): CreditNoteStatus {
  if (s.voidedAt) return 'void';
  const used = amountAppliedOf(s) + sumRefunds(s.refunds);
  return used === 0 ? 'open' : used === s.amount ? 'applied' : 'partially_applied';
}

/** The credit note's public JSON (contract §15). */
export function presentCreditNote(s: CreditNoteSnapshot): CreditNoteJson {
  const applied = amountAppliedOf(s);
  const refunded = sumRefunds(s.refunds);
  return {
    id: s.id,
    number: s.number,
    customer_id: s.customerId,
    invoice_id: s.invoiceId,
    status: creditNoteStatusOf(s),
    currency: s.currency,
    amount: s.amount,
    amount_applied: applied,
    amount_refunded: refunded,
    amount_remaining: s.amount - applied - refunded,
    applications: s.applications.map((a) => ({ id: a.id, invoice_id: a.invoiceId, amount: a.amount, applied_at: a.appliedAt.toISOString() })),
    refunds: s.refunds.map(presentRefund),
    reason: s.reason,
    memo: s.memo,
    line_items: s.lineItems.map((l) => LineItem.toJson(l)),
    voided_at: s.voidedAt ? s.voidedAt.toISOString() : null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
