import { toNullableNumber, toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { Invoice } from '../domain/invoice.aggregate';
import { InvoiceSnapshot, InvoiceView } from '../domain/invoice.snapshot';
import { InvoiceStatus } from '../domain/invoice-status';
import { LineItemSnapshot } from '../domain/line-item.value-object';

/** An invoices row joined with its customer's name and email, as pg returns it. */
export interface InvoiceRow {
  tenant_id: string;
  id: string;
  number: string;
  customer_id: string;
  customer_name: string | null;
  customer_email: string | null;
  status: InvoiceStatus;
  currency: string;
  issue_date: string;
  due_date: string;
  po_number: string | null;
  memo: string | null;
  line_items: LineItemSnapshot[];
  subtotal: string;
  discount_total: string;
  tax_total: string;
  total: string;
  amount_paid: string;
  amount_credited: string;
  amount_written_off: string;
  dispute_status: 'open' | 'resolved' | null;
  dispute_reason: string | null;
  dispute_amount: string | null;
  dispute_opened_at: Date | null;
  dispute_resolved_at: Date | null;
  metadata: Record<string, unknown>;
  finalized_at: Date | null;
  paid_at: Date | null;
  paid_on: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The columns of the public representation (InvoiceViewRow); `i` is invoices, `c` its customer. Dates as text: no time zone games. */
export const INVOICE_VIEW_SELECT = `i.id, i.number, i.customer_id, c.name AS customer_name, c.email AS customer_email,
       i.status, i.currency, i.issue_date::text AS issue_date, i.due_date::text AS due_date, i.po_number, i.memo, i.line_items,
       i.subtotal::text AS subtotal, i.discount_total::text AS discount_total, i.tax_total::text AS tax_total, i.total::text AS total,
       i.amount_paid::text AS amount_paid, i.amount_credited::text AS amount_credited, i.amount_written_off::text AS amount_written_off, i.dispute_status, i.dispute_reason, i.dispute_amount::text AS dispute_amount,
       i.dispute_opened_at, i.dispute_resolved_at, i.metadata, i.version, i.created_at, i.updated_at`;

/** Select list for a whole InvoiceRow (what the aggregate is restored from). */
export const INVOICE_SELECT = `i.tenant_id, ${INVOICE_VIEW_SELECT}, i.finalized_at, i.paid_at, i.paid_on::text AS paid_on`;

export const INVOICE_FROM = `invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id`;

/** Columns written on insert, in the order of `InvoiceMapper.toValues`. */
export const INVOICE_COLUMNS = [
  'tenant_id', 'id', 'number', 'customer_id', 'status', 'currency', 'issue_date', 'due_date', 'po_number', 'memo',
  'line_items', 'subtotal', 'discount_total', 'tax_total', 'total', 'amount_paid', 'dispute_status', 'dispute_reason',
  'dispute_amount', 'dispute_opened_at', 'dispute_resolved_at', 'metadata', 'finalized_at', 'paid_at', 'paid_on', 'version',
  'created_at', 'updated_at', 'amount_credited', 'amount_written_off',
] as const;

/** A row as the read models select it (INVOICE_VIEW_SELECT). */
export type InvoiceViewRow = Omit<InvoiceRow, 'tenant_id' | 'finalized_at' | 'paid_at' | 'paid_on'>;

export const InvoiceMapper = {
  toSnapshot(row: InvoiceRow): InvoiceSnapshot {
    return { ...InvoiceMapper.toView(row), tenantId: row.tenant_id, finalizedAt: row.finalized_at, paidAt: row.paid_at, paidOn: row.paid_on };
  },

  toView(row: InvoiceViewRow): InvoiceView {
    return {
      id: row.id,
      number: row.number,
      customerId: row.customer_id,
      customer: row.customer_name === null ? null : { id: row.customer_id, name: row.customer_name, email: row.customer_email },
      status: row.status,
      currency: row.currency,
      issueDate: row.issue_date,
      dueDate: row.due_date,
      poNumber: row.po_number,
      memo: row.memo,
      lineItems: row.line_items,
      subtotal: toSafeNumber(row.subtotal),
      discountTotal: toSafeNumber(row.discount_total),
      taxTotal: toSafeNumber(row.tax_total),
      total: toSafeNumber(row.total),
      amountPaid: toSafeNumber(row.amount_paid),
      amountCredited: toSafeNumber(row.amount_credited),
      amountWrittenOff: toSafeNumber(row.amount_written_off),
      dispute: row.dispute_status
        ? {
            status: row.dispute_status,
            reason: row.dispute_reason ?? '',
            amount: toNullableNumber(row.dispute_amount) ?? 0,
            openedAt: row.dispute_opened_at!,
            resolvedAt: row.dispute_resolved_at,
          }
        : null,
      metadata: row.metadata ?? {},
      version: row.version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  },

  toDomain(row: InvoiceRow): Invoice {
    return Invoice.restoreOwned(InvoiceMapper.toSnapshot(row));
  },

  /**
   * Values in INVOICE_COLUMNS order. `json` false: line_items and metadata left undefined, not
   * written out as JSON (for comparing the other columns).
   */
  toValues(s: InvoiceSnapshot, json = true): unknown[] {
    return [
      s.tenantId, s.id, s.number, s.customerId, s.status, s.currency, s.issueDate, s.dueDate, s.poNumber, s.memo,
      json ? JSON.stringify(s.lineItems) : undefined, s.subtotal, s.discountTotal, s.taxTotal, s.total, s.amountPaid,
      s.dispute?.status ?? null, s.dispute?.reason ?? null, s.dispute?.amount ?? null, s.dispute?.openedAt ?? null,
      s.dispute?.resolvedAt ?? null, json ? JSON.stringify(s.metadata) : undefined, s.finalizedAt, s.paidAt, s.paidOn, s.version, s.createdAt, s.updatedAt,
      s.amountCredited, s.amountWrittenOff,
    ];
  },
};
