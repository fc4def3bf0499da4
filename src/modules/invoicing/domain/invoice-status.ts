import { OPEN_STATUSES } from '../../../shared/domain/receivable';

export const INVOICE_STATUSES = ['draft', ...OPEN_STATUSES, 'paid', 'void', 'uncollectible'] as const;

export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export function isInvoiceStatus(value: unknown): value is InvoiceStatus {
  return typeof value === 'string' && (INVOICE_STATUSES as readonly string[]).includes(value);
}

/** Transitions a client may ask for with `PATCH {status}` (contract §7). */
export const PATCH_TRANSITIONS: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  draft: ['open', 'void'],
  open: ['void', 'uncollectible'],
  partially_paid: ['uncollectible'],
  paid: [],
  void: [],
  uncollectible: ['open'],
};

/**
 * Fields a PATCH may change per status (contract §7). `status` moves only along
 * PATCH_TRANSITIONS; uncollectible invoices may be reopened, annotated and have their dispute settled.
 */
export const EDITABLE_FIELDS: Readonly<Record<InvoiceStatus, 'all' | ReadonlySet<string>>> = {
  draft: 'all',
  open: new Set(['due_date', 'po_number', 'memo', 'metadata', 'dispute', 'status', 'line_items']),
  partially_paid: new Set(['due_date', 'po_number', 'memo', 'metadata', 'dispute', 'status', 'line_items']),
  paid: new Set(['memo', 'metadata']),
  void: new Set(['memo', 'metadata']),
  uncollectible: new Set(['memo', 'metadata', 'dispute', 'status']),
};
