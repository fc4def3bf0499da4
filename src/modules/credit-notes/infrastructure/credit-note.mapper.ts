import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { RefundJsonRow, refundsFromJson } from '../../../shared/infrastructure/database/refunds.sql';
import { LineItemSnapshot } from '../../invoicing';
import { CreditNoteReason, CreditNoteSnapshot } from '../domain/credit-note.snapshot';

/** A credit_notes row with its applications as parallel arrays (CREDIT_NOTE_SELECT), as pg returns it. */
export interface CreditNoteRow {
  tenant_id: string;
  id: string;
  number: string;
  customer_id: string;
  invoice_id: string | null;
  currency: string;
  amount: string;
  reason: CreditNoteReason;
  memo: string | null;
  line_items: LineItemSnapshot[];
  voided_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  application_ids: string[] | null;
  application_invoice_ids: string[];
  application_amounts: string[];
  application_ats: Date[];
  refunds: RefundJsonRow[] | null;
}

/** `n` is credit_notes; its applications come along in the order they were made. */
export const CREDIT_NOTE_SELECT = `n.tenant_id, n.id, n.number, n.customer_id, n.invoice_id, n.currency, n.amount::text AS amount,
       n.reason, n.memo, n.line_items, n.voided_at, n.version, n.created_at, n.updated_at,
       a.application_ids, a.application_invoice_ids, a.application_amounts, a.application_ats,
       (SELECT json_agg(json_build_array(r.id, r.amount::text, r.reason, r.created_at) ORDER BY r.created_at, r.id)
          FROM refunds r WHERE r.tenant_id = n.tenant_id AND r.credit_note_id = n.id) AS refunds`;

export const CREDIT_NOTE_APPLICATIONS_JOIN = `LEFT JOIN LATERAL (
        SELECT array_agg(ca.id ORDER BY ca.applied_at, ca.id) AS application_ids,
               array_agg(ca.invoice_id ORDER BY ca.applied_at, ca.id) AS application_invoice_ids,
               array_agg(ca.amount::text ORDER BY ca.applied_at, ca.id) AS application_amounts,
               array_agg(ca.applied_at ORDER BY ca.applied_at, ca.id) AS application_ats
          FROM credit_note_applications ca
         WHERE ca.tenant_id = n.tenant_id AND ca.credit_note_id = n.id) a ON true`;

export const CreditNoteMapper = {
  toSnapshot(row: CreditNoteRow): CreditNoteSnapshot {
    return {
      tenantId: row.tenant_id,
      id: row.id,
      number: row.number,
      customerId: row.customer_id,
      invoiceId: row.invoice_id,
      currency: row.currency,
      amount: toSafeNumber(row.amount),
      reason: row.reason,
      memo: row.memo,
      lineItems: row.line_items,
      applications: (row.application_ids ?? []).map((id, k) => ({
        id,
        invoiceId: row.application_invoice_ids[k],
        amount: toSafeNumber(row.application_amounts[k]),
        appliedAt: row.application_ats[k],
      })),
      refunds: refundsFromJson(row.refunds),
      voidedAt: row.voided_at,
      version: row.version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  },
};
