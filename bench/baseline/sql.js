'use strict';
/**
 * The service's SQL, copied verbatim from where the service runs it (file in each comment).
 * When the service's queries change, change them here too: the benchmark compares the same
 * statements with and without the framework around them. Rules are not copied: the open /
 * overdue invoice rule comes from the compiled service (`npm run bench` builds it first).
 */
const { openInvoiceSql } = require('../../dist/shared/infrastructure/query/receivable.sql');

// src/modules/invoicing/infrastructure/invoice.mapper.ts
const INVOICE_VIEW_SELECT = `i.id, i.number, i.customer_id, c.name AS customer_name, c.email AS customer_email,
       i.status, i.currency, i.issue_date::text AS issue_date, i.due_date::text AS due_date, i.po_number, i.memo, i.line_items,
       i.subtotal::text AS subtotal, i.discount_total::text AS discount_total, i.tax_total::text AS tax_total, i.total::text AS total,
       i.amount_paid::text AS amount_paid, i.amount_credited::text AS amount_credited, i.amount_written_off::text AS amount_written_off, i.dispute_status, i.dispute_reason, i.dispute_amount::text AS dispute_amount,
       i.dispute_opened_at, i.dispute_resolved_at, i.metadata, i.version, i.created_at, i.updated_at`;
const INVOICE_FROM = `invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id`;
const INVOICE_COLUMNS = [
  'tenant_id', 'id', 'number', 'customer_id', 'status', 'currency', 'issue_date', 'due_date', 'po_number', 'memo',
  'line_items', 'subtotal', 'discount_total', 'tax_total', 'total', 'amount_paid', 'dispute_status', 'dispute_reason',
  'dispute_amount', 'dispute_opened_at', 'dispute_resolved_at', 'metadata', 'finalized_at', 'paid_at', 'paid_on', 'version',
  'created_at', 'updated_at', 'amount_credited', 'amount_written_off',
];

// src/modules/customers/infrastructure/sql-customer-read-model.ts
const CUSTOMER_SELECT = `c.id, c.name, c.email, c.external_id, c.phone, c.billing_address, c.currency, c.payment_terms_days,
       c.credit_limit::text, c.credit_hold, c.metadata, c.aliases, c.payer_accounts, c.balance::text, c.created_at, c.updated_at`;
// src/modules/customers/infrastructure/aging.sql.ts (AGING_BUCKETS expanded)
const aging = (due, amount, asOf) => {
  const days = `(${asOf}::date - ${due})`;
  return [
    `COALESCE(SUM(${amount}) FILTER (WHERE ${days} <= 0), 0)::text AS current`,
    `COALESCE(SUM(${amount}) FILTER (WHERE ${days} >= 1 AND ${days} <= 30), 0)::text AS days_1_30`,
    `COALESCE(SUM(${amount}) FILTER (WHERE ${days} >= 31 AND ${days} <= 60), 0)::text AS days_31_60`,
    `COALESCE(SUM(${amount}) FILTER (WHERE ${days} >= 61 AND ${days} <= 90), 0)::text AS days_61_90`,
    `COALESCE(SUM(${amount}) FILTER (WHERE ${days} >= 91), 0)::text AS days_over_90`,
  ].join(',\n       ');
};

module.exports.sql = {
  INVOICE_VIEW_SELECT,
  INVOICE_FROM,
  // InvoiceReadModel.get
  invoiceById: `SELECT ${INVOICE_VIEW_SELECT}, a.payment_ids, a.application_ids, a.amounts, a.applied_ats,
              w.write_off_ids, w.write_off_amounts, w.write_off_reasons, w.write_off_ats,
              cr.credit_note_ids, cr.credit_application_ids, cr.credit_amounts, cr.credit_applied_ats
         FROM ${INVOICE_FROM}
         LEFT JOIN LATERAL (
              SELECT array_agg(pa.payment_id ORDER BY pa.applied_at, pa.id) AS payment_ids,
                     array_agg(pa.id ORDER BY pa.applied_at, pa.id) AS application_ids,
                     array_agg(pa.amount::text ORDER BY pa.applied_at, pa.id) AS amounts,
                     array_agg(pa.applied_at ORDER BY pa.applied_at, pa.id) AS applied_ats
                FROM payment_applications pa
               WHERE pa.tenant_id = i.tenant_id AND pa.invoice_id = i.id AND pa.reversed_at IS NULL) a ON true
         LEFT JOIN LATERAL (
              SELECT array_agg(wo.id ORDER BY wo.created_at, wo.id) AS write_off_ids,
                     array_agg(wo.amount::text ORDER BY wo.created_at, wo.id) AS write_off_amounts,
                     array_agg(wo.reason ORDER BY wo.created_at, wo.id) AS write_off_reasons,
                     array_agg(wo.created_at ORDER BY wo.created_at, wo.id) AS write_off_ats
                FROM invoice_write_offs wo
               WHERE wo.tenant_id = i.tenant_id AND wo.invoice_id = i.id) w ON true
         LEFT JOIN LATERAL (
              SELECT array_agg(ca.credit_note_id ORDER BY ca.applied_at, ca.id) AS credit_note_ids,
                     array_agg(ca.id ORDER BY ca.applied_at, ca.id) AS credit_application_ids,
                     array_agg(ca.amount::text ORDER BY ca.applied_at, ca.id) AS credit_amounts,
                     array_agg(ca.applied_at ORDER BY ca.applied_at, ca.id) AS credit_applied_ats
                FROM credit_note_applications ca
               WHERE ca.tenant_id = i.tenant_id AND ca.invoice_id = i.id) cr ON true
        WHERE i.tenant_id = $1 AND i.id = $2`,

  // TypeormCustomerRepository.findById (customer.mapper.ts CUSTOMER_COLUMNS)
  customerById: `SELECT tenant_id, id, name, email, external_id, phone, billing_address, currency, payment_terms_days, credit_limit, credit_hold, metadata, aliases, payer_accounts, version, created_at, updated_at FROM customers WHERE tenant_id = $1 AND id = $2`,
  // TypeormInvoiceNumberRepository.next
  nextNumber: `INSERT INTO invoice_number_counters (tenant_id, last_value) VALUES ($1, 1)
         ON CONFLICT (tenant_id) DO UPDATE SET last_value = invoice_number_counters.last_value + 1
         RETURNING last_value::text`,
  numberTaken: `SELECT 1 FROM invoices WHERE tenant_id = $1 AND lower(number) = lower($2)`,
  // TypeormInvoiceRepository.save (insert)
  insertInvoice: `INSERT INTO invoices (${INVOICE_COLUMNS.join(', ')}) VALUES (${INVOICE_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
  // LedgerWriter.post (the customer's balance follows in a trigger)
  ledgerPost: `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
  // OutboxWriter.write (OUTBOX_INSERT_SQL): the transaction's events as arrays, with its NOTIFY, one text for any count
  // (written published when the tenant has no enabled endpoint, and then no NOTIFY: ADR 0057)
  outboxInsert: `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at, published_at)
         SELECT r.*, CASE WHEN r.tenant_id = ($1::text[])[1] THEN (SELECT outbox_published_at(($1::text[])[1])) ELSE outbox_published_at(r.tenant_id) END
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[])
             AS r (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
         RETURNING published_at IS NULL AS unpublished)
       SELECT (SELECT pg_notify('outbox', '') FROM written WHERE unpublished LIMIT 1) AS notified`,
  // CustomerReadModel.get
  customerDetail: `SELECT ${CUSTOMER_SELECT}, '' AS _keyset_value,
              c.total_invoiced::text, c.total_paid::text, c.total_credited::text, c.total_written_off::text, c.total_refunded::text,
              ROUND(c.paid_days_sum::numeric / NULLIF(c.paid_invoice_count, 0), 1)::text AS average_days,
              c.last_payment_id, lp.amount::text AS last_payment_amount, c.last_payment_date::text,
              (SELECT COALESCE(SUM(p.amount - p.amount_applied - p.amount_refunded), 0) FROM payments p
                WHERE p.tenant_id = $1 AND p.customer_id = $2 AND p.status <> 'applied')::text AS unapplied,
              o.*
         FROM customers c
         LEFT JOIN payments lp ON lp.tenant_id = c.tenant_id AND lp.id = c.last_payment_id
        CROSS JOIN LATERAL (
              SELECT COUNT(*)::int AS open_count,
                     COUNT(*) FILTER (WHERE i.due_date < $4::date)::int AS overdue_count,
                     COALESCE(SUM(i.amount_due) FILTER (WHERE i.due_date < $4::date), 0)::text AS overdue_amount,
                     ${aging('i.due_date', 'i.amount_due', '$3')}
                FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}) o
        WHERE c.tenant_id = $1 AND c.id = $2`,

  // StatementReadModel.open (RECEIVABLES_AS_OF_SQL, LINES_SQL and SUMMARY_SQL, with $5 = INLINE_LINES)
  statement: `SELECT c.id, c.name, c.email, c.external_id, c.billing_address, c.currency, t.name AS tenant_name,
        (c.balance - p.from_on)::text AS opening_balance, p.debits::text AS total_debits, p.credits::text AS total_credits, p.line_count,
        (SELECT json_agg(json_build_array(e.date, e.type, e.reference, e.description, e.debit, e.credit))
           FROM (SELECT to_char(l.entry_date, 'YYYY-MM-DD') AS date, l.type, l.reference, l.description, l.debit::text AS debit, l.credit::text AS credit
                   FROM ledger_entries l
                  WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date BETWEEN $3::date AND $4::date
                  ORDER BY l.entry_date, l.seq LIMIT $5) e) AS entries,
        r.*
   FROM customers c
   JOIN tenants t ON t.id = c.tenant_id
  CROSS JOIN LATERAL (
        SELECT COALESCE(SUM(l.debit - l.credit), 0) AS from_on,
               COALESCE(SUM(l.debit) FILTER (WHERE l.entry_date <= $4::date), 0) AS debits,
               COALESCE(SUM(l.credit) FILTER (WHERE l.entry_date <= $4::date), 0) AS credits,
               COUNT(*) FILTER (WHERE l.entry_date <= $4::date)::int AS line_count
          FROM ledger_entries l WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date >= $3::date) p
  CROSS JOIN LATERAL (
  WITH later AS (
         SELECT l.type, l.source_type, l.source_id, l.debit - l.credit AS delta
           FROM ledger_entries l WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date > $4::date),
       later_payments AS (
         SELECT p.id, p.amount - p.amount_applied - p.amount_refunded AS unapplied FROM payments p
          WHERE p.tenant_id = $1 AND p.id IN (SELECT source_id FROM later WHERE type = 'payment')),
       later_notes AS (
         SELECT n.id, CASE WHEN n.voided_at IS NULL THEN n.amount_remaining ELSE 0 END AS remaining FROM credit_notes n
          WHERE n.tenant_id = $1 AND n.id IN (SELECT source_id FROM later WHERE type = 'credit_note')),
       later_credit AS (SELECT id FROM later_payments UNION ALL SELECT id FROM later_notes),
       later_applications AS (
         SELECT pa.invoice_id, pa.amount FROM payment_applications pa
          WHERE pa.tenant_id = $1 AND pa.reversed_at IS NULL AND pa.payment_id IN (SELECT id FROM later_payments)
         UNION ALL
         SELECT ca.invoice_id, ca.amount FROM credit_note_applications ca
          WHERE ca.tenant_id = $1 AND ca.credit_note_id IN (SELECT id FROM later_notes)),
       candidates AS (
         SELECT i.id FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}
         UNION SELECT source_id FROM later WHERE source_type = 'invoice'
         UNION SELECT invoice_id FROM later_applications),
       as_of AS (
         SELECT i.due_date,
                -- every candidate is finalized, so its 'invoice' entry is dated issue_date
                i.issue_date <= $4::date OR EXISTS (SELECT 1 FROM ledger_entries e
                   WHERE e.tenant_id = $1 AND e.source_type = 'invoice' AND e.source_id = i.id AND e.entry_date <= $4::date) AS receivable,
                (CASE WHEN ${openInvoiceSql('i.')} THEN i.amount_due ELSE 0 END)
                  - COALESCE((SELECT SUM(x.delta) FROM later x WHERE x.source_type = 'invoice' AND x.source_id = i.id), 0)
                  + COALESCE(la.amount, 0) AS amount,
                i.amount_paid + i.amount_credited - COALESCE(la.amount, 0) AS settled_by_earlier_credit
           FROM candidates k
           JOIN invoices i ON i.tenant_id = $1 AND i.id = k.id
           LEFT JOIN LATERAL (SELECT SUM(x.amount) AS amount FROM later_applications x WHERE x.invoice_id = i.id) la ON true)
  SELECT ${aging('a.due_date', 'CASE WHEN a.receivable THEN a.amount ELSE 0 END', '$4')},
         ((SELECT COALESCE(SUM(p.amount - p.amount_applied - p.amount_refunded), 0) FROM payments p
            WHERE p.tenant_id = $1 AND p.customer_id = $2 AND p.status <> 'applied')
          + (SELECT COALESCE(SUM(n.amount_remaining), 0) FROM credit_notes n
              WHERE n.tenant_id = $1 AND n.customer_id = $2 AND n.status IN ('open', 'partially_applied'))
          - (SELECT COALESCE(SUM(unapplied), 0) FROM later_payments)
          - (SELECT COALESCE(SUM(remaining), 0) FROM later_notes)
          + (SELECT COALESCE(SUM(x.delta), 0) FROM later x JOIN refunds f ON f.tenant_id = $1 AND f.id = x.source_id
              WHERE x.type = 'refund' AND COALESCE(f.payment_id, f.credit_note_id) NOT IN (SELECT id FROM later_credit))
          + (SELECT COALESCE(SUM(x.delta), 0) FROM later x
              WHERE x.type = 'void' AND x.source_type = 'credit_note' AND x.source_id NOT IN (SELECT id FROM later_notes))
          + COALESCE(SUM(a.settled_by_earlier_credit) FILTER (WHERE NOT a.receivable), 0))::text AS unapplied_credit
    FROM as_of a) r
  WHERE c.tenant_id = $1 AND c.id = $2`,
};
