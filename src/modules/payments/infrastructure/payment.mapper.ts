import { RefundState } from '../../../shared/domain/refund';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { RefundJsonRow, refundsFromJson } from '../../../shared/infrastructure/database/refunds.sql';
import { PaymentApplicationState } from '../domain/payment-application.entity';
import { PaymentSnapshot } from '../domain/payment.snapshot';
import { RemittanceLine } from '../domain/matching/cash-matching.policy';

export interface PaymentRow {
  tenant_id: string;
  id: string;
  customer_id: string | null;
  amount: string;
  currency: string;
  payment_date: string;
  method: PaymentSnapshot['method'];
  reference: string | null;
  remittance: { invoice_id?: string; invoice_number?: string; amount?: number }[];
  payer_name: string | null;
  payer_account: string | null;
  payer_bank_id: string | null;
  bank_entry_id: string | null;
  customer_source: PaymentSnapshot['customerSource'];
  auto_match: PaymentSnapshot['autoMatch'];
  match_status: PaymentSnapshot['match']['status'];
  match_rule: PaymentSnapshot['match']['rule'];
  match_suggestions: PaymentSnapshot['match']['suggestions'];
  /** [{id, invoice_id, invoice_number, amount}] (migration 1764500000000) */
  match_write_offs: { id: string; invoice_id: string; invoice_number: string; amount: number }[] | null;
  metadata: Record<string, unknown>;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** PAYMENT_REFUNDS_COLUMN, where the query selected it: [id, amount, reason, created_at] */
  refunds?: RefundJsonRow[] | null;
}

export interface ApplicationRow {
  id: string;
  payment_id: string;
  invoice_id: string;
  invoice_number: string;
  amount: string;
  source: 'auto' | 'manual';
  applied_at: Date;
  reversed_at: Date | null;
}

/** Columns of `payments` as PaymentRow expects them (payment_date as text: no time-zone shifts). */
export const PAYMENT_COLUMNS = `p.tenant_id, p.id, p.customer_id, p.amount, p.currency, to_char(p.payment_date, 'YYYY-MM-DD') AS payment_date,
  p.method, p.reference, p.remittance, p.payer_name, p.payer_account, p.payer_bank_id, p.bank_entry_id, p.customer_source, p.auto_match, p.match_status, p.match_rule, p.match_suggestions, p.match_write_offs, p.metadata,
  p.version, p.created_at, p.updated_at`;

/**
 * The payment's refunds (`p`), oldest first, as one JSON column. For reads only: a statement that
 * locks the payment and waited for it would read its refunds as they were before the wait.
 */
export const PAYMENT_REFUNDS_COLUMN = `(SELECT json_agg(json_build_array(r.id, r.amount::text, r.reason, r.created_at) ORDER BY r.created_at, r.id)
     FROM refunds r WHERE r.tenant_id = p.tenant_id AND r.payment_id = p.id) AS refunds`;

/** The refunds of one payment ($1 tenant, $2 payment), oldest first, read after its row is locked. */
export const REFUNDS_SQL = `SELECT json_build_array(r.id, r.amount::text, r.reason, r.created_at) AS refund
   FROM refunds r WHERE r.tenant_id = $1 AND r.payment_id = $2 ORDER BY r.created_at, r.id`;

/** Applications of the given payments with their invoice numbers, oldest first. */
export const APPLICATIONS_SQL = `
  SELECT a.id, a.payment_id, a.invoice_id, i.number AS invoice_number, a.amount, a.source, a.applied_at, a.reversed_at
    FROM payment_applications a
    JOIN invoices i ON i.tenant_id = a.tenant_id AND i.id = a.invoice_id
   WHERE a.tenant_id = $1 AND a.payment_id = ANY($2::text[])
   ORDER BY a.applied_at, a.id`;

export const PaymentMapper = {
  toApplication(row: ApplicationRow): PaymentApplicationState {
    return {
      id: row.id,
      invoiceId: row.invoice_id,
      invoiceNumber: row.invoice_number,
      amount: toSafeNumber(row.amount),
      source: row.source,
      appliedAt: row.applied_at,
      reversedAt: row.reversed_at,
    };
  },

  /** `refunds`: read apart (after a lock); by default the row's PAYMENT_REFUNDS_COLUMN. */
  toSnapshot(row: PaymentRow, applications: ApplicationRow[], refunds: RefundState[] = refundsFromJson(row.refunds)): PaymentSnapshot {
    return {
      tenantId: row.tenant_id,
      id: row.id,
      customerId: row.customer_id,
      amount: toSafeNumber(row.amount),
      currency: row.currency,
      paymentDate: row.payment_date,
      method: row.method,
      reference: row.reference,
      remittance: row.remittance.map(
        (l): RemittanceLine => ({ invoiceId: l.invoice_id ?? null, invoiceNumber: l.invoice_number ?? null, amount: l.amount ?? null }),
      ),
      payer:
        row.payer_name === null && row.payer_account === null && row.payer_bank_id === null
          ? null
          : { name: row.payer_name, account: row.payer_account, bankId: row.payer_bank_id },
      bankEntryId: row.bank_entry_id,
      // Payments recorded before §14 kept no source: theirs came with the request or from a person.
      customerSource: row.customer_source ?? (row.customer_id === null ? null : row.match_rule === 'manual' ? 'manual' : 'request'),
      autoMatch: row.auto_match,
      metadata: row.metadata,
      match: {
        status: row.match_status,
        rule: row.match_rule,
        suggestions: row.match_suggestions,
        writeOffs: (row.match_write_offs ?? []).map((w) => ({ id: w.id, invoiceId: w.invoice_id, invoiceNumber: w.invoice_number, amount: w.amount, reason: 'short_pay' })),
      },
      applications: applications.map(PaymentMapper.toApplication),
      refunds,
      version: row.version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  },

  writeOffsToJson(writeOffs: PaymentSnapshot['match']['writeOffs']): string {
    return JSON.stringify(writeOffs.map((w) => ({ id: w.id, invoice_id: w.invoiceId, invoice_number: w.invoiceNumber, amount: w.amount })));
  },

  remittanceToJson(lines: readonly RemittanceLine[]): string {
    return JSON.stringify(
      lines.map((l) => ({
        ...(l.invoiceId ? { invoice_id: l.invoiceId } : { invoice_number: l.invoiceNumber }),
        ...(l.amount !== null ? { amount: l.amount } : {}),
      })),
    );
  },
};
