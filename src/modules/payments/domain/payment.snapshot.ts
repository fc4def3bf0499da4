import type { Payer } from '../../../shared/domain/payer';
import { presentRefund, RefundJson, RefundState, sumRefunds } from '../../../shared/domain/refund';
import type { PaymentApplicationState } from './payment-application.entity';
import type { AutoMatchMode, MatchRule, MatchSuggestion, RemittanceLine, ReviewRule } from './matching/cash-matching.policy';

export const PAYMENT_METHODS = ['ach', 'wire', 'check', 'card', 'cash', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const AUTO_MATCH_MODES: readonly AutoMatchMode[] = ['strict', 'oldest_first', 'none'];
export const PAYMENT_STATUSES = ['unapplied', 'partially_applied', 'applied'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type MatchStatus = 'matched' | 'partial' | 'unmatched' | 'needs_review';
/** How the payment's customer was found (contract §14). */
export const CUSTOMER_SOURCES = ['request', 'remittance', 'reference', 'payer_account', 'payer_name', 'manual'] as const;
export type CustomerSource = (typeof CUSTOMER_SOURCES)[number];

export interface PaymentMatch {
  status: MatchStatus;
  /**
   * the rule that applied (or found the candidates); `manual` once a person applied by hand;
   * `payer_account` / `payer_name` when the payer fits several customers
   */
  rule: MatchRule | ReviewRule | 'manual' | null;
  suggestions: MatchSuggestion[];
  /**
   * Short pays automatic matching settled within the tenant's tolerance (§13): the write-offs it
   * made, one per invoice. Facts: kept when applications are later reversed or made by hand.
   */
  writeOffs: MatchWriteOff[];
}

/** A write-off made by automatic matching to settle a short pay (§13, reason `short_pay`). */
export interface MatchWriteOff {
  /** the invoice write-off's id (`wo_…`) */
  id: string;
  invoiceId: string;
  invoiceNumber: string;
  amount: number;
  reason: 'short_pay';
}

export interface MatchWriteOffJson {
  id: string;
  invoice_id: string;
  invoice_number: string;
  amount: number;
  reason: 'short_pay';
}

export interface PaymentMatchJson {
  status: MatchStatus;
  rule: PaymentMatch['rule'];
  suggestions: MatchSuggestion[];
  customer_source: CustomerSource | null;
  write_offs: MatchWriteOffJson[];
}

export interface PayerJson {
  name: string | null;
  account: string | null;
  bank_id: string | null;
}

/**
 * Everything persisted about a payment, as plain data. The aggregate wraps it, the repository
 * maps rows to it, and queries present it with `presentPayment`, so events and GET responses
 * share one representation.
 */
export interface PaymentSnapshot {
  tenantId: string;
  id: string;
  customerId: string | null;
  amount: number;
  currency: string;
  paymentDate: string;
  method: PaymentMethod;
  reference: string | null;
  remittance: RemittanceLine[];
  /** who paid, when the client or the bank said (null: not said) */
  payer: Payer | null;
  /** the bank's id of the entry this payment was booked as */
  bankEntryId: string | null;
  /** how the customer was found; null while there is none */
  customerSource: CustomerSource | null;
  autoMatch: AutoMatchMode;
  metadata: Record<string, unknown>;
  match: PaymentMatch;
  /** all applications, reversed ones included (history) */
  applications: PaymentApplicationState[];
  /** what was paid back out of the unapplied amount (contract §15) */
  refunds: RefundState[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface PaymentApplicationJson {
  id: string;
  invoice_id: string;
  invoice_number: string;
  amount: number;
  source: 'auto' | 'manual';
  applied_at: string;
}

export interface PaymentJson {
  id: string;
  customer_id: string | null;
  amount: number;
  currency: string;
  payment_date: string;
  method: PaymentMethod;
  reference: string | null;
  remittance: ({ invoice_id: string } | { invoice_number: string } | { amount: number })[];
  payer: PayerJson | null;
  bank_entry_id: string | null;
  status: PaymentStatus;
  amount_applied: number;
  amount_refunded: number;
  amount_unapplied: number;
  applications: PaymentApplicationJson[];
  refunds: RefundJson[];
  match: PaymentMatchJson;
  auto_match: AutoMatchMode;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/**
 * How much of the payment is used — applied to invoices or refunded: none (unapplied), all
 * (applied: nothing is left to apply), or some (partially applied). The database checks the same.
 */
export function paymentStatusOf(amount: number, applied: number, refunded = 0): PaymentStatus {
  const used = applied + refunded;
  return used === 0 ? 'unapplied' : used === amount ? 'applied' : 'partially_applied';
}

/** What a match, reversal or refund changes of a payment's public JSON (their events' `previous_attributes`). */
export type PaymentChangesJson = Pick<
  PaymentJson,
  'customer_id' | 'status' | 'amount_applied' | 'amount_refunded' | 'amount_unapplied' | 'applications' | 'refunds' | 'match'
>;

/**
 * Those fields of presentPayment's answer, in that order, computed as presentPayment computes them
 * (it takes them from here), without presenting the rest of the payment (ADR 0053).
 */
export function presentPaymentChanges(
  s: Pick<PaymentSnapshot, 'customerId' | 'amount' | 'applications' | 'refunds' | 'match' | 'customerSource'>,
): PaymentChangesJson {
  const active = s.applications.filter((a) => a.reversedAt === null);
  const applied = active.reduce((sum, a) => sum + a.amount, 0);
  const refunded = sumRefunds(s.refunds);
  return {
    customer_id: s.customerId,
    status: paymentStatusOf(s.amount, applied, refunded),
    amount_applied: applied,
    amount_refunded: refunded,
    amount_unapplied: s.amount - applied - refunded,
    applications: active.map((a) => ({
      id: a.id,
      invoice_id: a.invoiceId,
      invoice_number: a.invoiceNumber,
      amount: a.amount,
      source: a.source,
      applied_at: a.appliedAt.toISOString(),
    })),
    refunds: s.refunds.map(presentRefund),
    match: {
      status: s.match.status,
      rule: s.match.rule,
      suggestions: s.match.suggestions,
      customer_source: s.customerSource,
      write_offs: s.match.writeOffs.map((w) => ({ id: w.id, invoice_id: w.invoiceId, invoice_number: w.invoiceNumber, amount: w.amount, reason: w.reason })),
    },
  };
}

/** The payment's public JSON (contract §8): active applications only, amounts derived from them. */
export function presentPayment(s: PaymentSnapshot): PaymentJson {
  const c = presentPaymentChanges(s);
  return {
    id: s.id,
    customer_id: c.customer_id,
    amount: s.amount,
    currency: s.currency,
    payment_date: s.paymentDate,
    method: s.method,
    reference: s.reference,
    remittance: s.remittance.map((l) => ({
      ...(l.invoiceId ? { invoice_id: l.invoiceId } : { invoice_number: l.invoiceNumber! }),
      ...(l.amount !== null ? { amount: l.amount } : {}),
    })),
    payer: s.payer ? { name: s.payer.name, account: s.payer.account, bank_id: s.payer.bankId } : null,
    bank_entry_id: s.bankEntryId,
    status: c.status,
    amount_applied: c.amount_applied,
    amount_refunded: c.amount_refunded,
    amount_unapplied: c.amount_unapplied,
    applications: c.applications,
    refunds: c.refunds,
    match: c.match,
    auto_match: s.autoMatch,
    metadata: s.metadata,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
