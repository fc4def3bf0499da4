import { daysBetween } from '../../../shared/domain/clock';
import { isOverdueInvoice } from '../../../shared/domain/receivable';
import { InvoiceStatus } from './invoice-status';
import { LineItem, LineItemJson, LineItemSnapshot } from './line-item.value-object';

export interface CustomerSummary {
  id: string;
  name: string;
  email: string | null;
}

export interface DisputeSnapshot {
  status: 'open' | 'resolved';
  reason: string;
  amount: number;
  openedAt: Date;
  resolvedAt: Date | null;
}

/**
 * Everything persisted about an invoice, as plain data. The aggregate wraps it; the
 * repository maps it to and from rows; list/detail queries map rows into it and present
 * it with `presentInvoice`, so events and GET responses share one representation.
 */
export interface InvoiceSnapshot {
  tenantId: string;
  id: string;
  number: string;
  customerId: string;
  customer: CustomerSummary | null;
  status: InvoiceStatus;
  currency: string;
  issueDate: string;
  dueDate: string;
  poNumber: string | null;
  memo: string | null;
  lineItems: LineItemSnapshot[];
  subtotal: number;
  discountTotal: number;
  taxTotal: number;
  total: number;
  amountPaid: number;
  /** Σ the credit notes applied to it (contract §15) */
  amountCredited: number;
  /** Σ its write-offs (contract §15) */
  amountWrittenOff: number;
  dispute: DisputeSnapshot | null;
  metadata: Record<string, unknown>;
  finalizedAt: Date | null;
  paidAt: Date | null;
  /** The date paid (YYYY-MM-DD) while status is paid: the payment date of the application that settled it. */
  paidOn: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface InvoiceJson {
  id: string;
  number: string;
  customer_id: string;
  customer: CustomerSummary | null;
  status: InvoiceStatus;
  currency: string;
  issue_date: string;
  due_date: string;
  po_number: string | null;
  memo: string | null;
  line_items: LineItemJson[];
  subtotal: number;
  discount_total: number;
  tax_total: number;
  total: number;
  amount_paid: number;
  amount_credited: number;
  amount_written_off: number;
  amount_due: number;
  overdue: boolean;
  days_past_due: number;
  dispute: { status: 'open' | 'resolved'; reason: string; amount: number; opened_at: string; resolved_at: string | null } | null;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What settles an invoice: payments, credit notes and write-offs (contract §15). */
export type InvoiceSettlements = Pick<InvoiceSnapshot, 'total' | 'amountPaid' | 'amountCredited' | 'amountWrittenOff'>;

/** Contract §15: `amount_due = total − amount_paid − amount_credited − amount_written_off` (the database's generated column too). */
export function amountDueOf(s: InvoiceSettlements): number {
  return s.total - s.amountPaid - s.amountCredited - s.amountWrittenOff;
}

/** Contract §7: still expecting money, something left to pay, and due before today (shared/domain/receivable.ts). */
export function isOverdue(s: Pick<InvoiceSnapshot, 'status' | 'dueDate'> & InvoiceSettlements, today: string): boolean {
  return isOverdueInvoice({ status: s.status, amountDue: amountDueOf(s), dueDate: s.dueDate }, today);
}

/**
 * The fields of the public JSON a settlement can change (status and figures; `version` and
 * `updated_at` aside), computed as presentInvoice computes them: what `invoice.updated`'s
 * previous_attributes of a settlement is taken from, without presenting the whole invoice before it (ADR 0058).
 */
export type SettlementFiguresJson = Pick<InvoiceJson, 'status' | 'amount_paid' | 'amount_credited' | 'amount_written_off' | 'amount_due' | 'overdue' | 'days_past_due'>;

export function presentSettlementFigures(s: Pick<InvoiceSnapshot, 'status' | 'dueDate'> & InvoiceSettlements, today: string): SettlementFiguresJson {
  const overdue = isOverdue(s, today);
  return {
    status: s.status,
    amount_paid: s.amountPaid,
    amount_credited: s.amountCredited,
    amount_written_off: s.amountWrittenOff,
    amount_due: amountDueOf(s),
    overdue,
    days_past_due: overdue ? daysBetween(s.dueDate, today) : 0,
  };
}

/** The invoice's public JSON (contract §7, without the detail-only `payments`). */
/** What the public representation is made of: the snapshot without the bookkeeping fields. */
export type InvoiceView = Omit<InvoiceSnapshot, 'tenantId' | 'finalizedAt' | 'paidAt' | 'paidOn'>;

export function presentInvoice(s: InvoiceView, today: string): InvoiceJson {
  const overdue = isOverdue(s, today);
  return {
    id: s.id,
    number: s.number,
    customer_id: s.customerId,
    customer: s.customer ? { id: s.customer.id, name: s.customer.name, email: s.customer.email } : null,
    status: s.status,
    currency: s.currency,
    issue_date: s.issueDate,
    due_date: s.dueDate,
    po_number: s.poNumber,
    memo: s.memo,
    line_items: s.lineItems.map((l) => LineItem.toJson(l)),
    subtotal: s.subtotal,
    discount_total: s.discountTotal,
    tax_total: s.taxTotal,
    total: s.total,
    amount_paid: s.amountPaid,
    amount_credited: s.amountCredited,
    amount_written_off: s.amountWrittenOff,
    amount_due: amountDueOf(s),
    overdue,
    days_past_due: overdue ? daysBetween(s.dueDate, today) : 0,
    dispute: s.dispute
      ? {
          status: s.dispute.status,
          reason: s.dispute.reason,
          amount: s.dispute.amount,
          opened_at: s.dispute.openedAt.toISOString(),
          resolved_at: s.dispute.resolvedAt ? s.dispute.resolvedAt.toISOString() : null,
        }
      : null,
    metadata: s.metadata,
    version: s.version,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
