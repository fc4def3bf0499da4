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
       i.amount_paid::text AS amount_paid, i.dispute_status, i.dispute_reason, i.dispute_amount::text AS dispute_amount,
       i.dispute_opened_at, i.dispute_resolved_at, i.metadata, i.version, i.created_at, i.updated_at`;
const INVOICE_FROM = `invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id`;
const INVOICE_COLUMNS = [
  'tenant_id', 'id', 'number', 'customer_id', 'status', 'currency', 'issue_date', 'due_date', 'po_number', 'memo',
  'line_items', 'subtotal', 'discount_total', 'tax_total', 'total', 'amount_paid', 'dispute_status', 'dispute_reason',
  'dispute_amount', 'dispute_opened_at', 'dispute_resolved_at', 'metadata', 'finalized_at', 'paid_at', 'paid_on', 'version',
  'created_at', 'updated_at',
];

// src/modules/customers/infrastructure/customer-read-model.ts
const CUSTOMER_SELECT = `c.id, c.name, c.email, c.external_id, c.phone, c.billing_address, c.currency, c.payment_terms_days,
       c.credit_limit::text, c.credit_hold, c.metadata, c.balance::text, c.created_at, c.updated_at`;
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
  invoiceById: `SELECT ${INVOICE_VIEW_SELECT}, a.payment_ids, a.application_ids, a.amounts, a.applied_ats
         FROM ${INVOICE_FROM}
         LEFT JOIN LATERAL (
              SELECT array_agg(pa.payment_id ORDER BY pa.applied_at, pa.id) AS payment_ids,
                     array_agg(pa.id ORDER BY pa.applied_at, pa.id) AS application_ids,
                     array_agg(pa.amount::text ORDER BY pa.applied_at, pa.id) AS amounts,
                     array_agg(pa.applied_at ORDER BY pa.applied_at, pa.id) AS applied_ats
                FROM payment_applications pa
               WHERE pa.tenant_id = i.tenant_id AND pa.invoice_id = i.id AND pa.reversed_at IS NULL) a ON true
        WHERE i.tenant_id = $1 AND i.id = $2`,

  // TypeormCustomerRepository.findById (customer.mapper.ts CUSTOMER_COLUMNS)
  customerById: `SELECT tenant_id, id, name, email, external_id, phone, billing_address, currency, payment_terms_days, credit_limit, credit_hold, metadata, version, created_at, updated_at FROM customers WHERE tenant_id = $1 AND id = $2`,
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
  // OutboxWriter.write (one and two events, with its NOTIFY in the same statement)
  outboxInsert1: `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
         RETURNING 1)
       SELECT pg_notify('outbox', '')`,
  outboxInsert2: `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7), ($8, $9, $10, $11, $12, $13::jsonb, $14)
         RETURNING 1)
       SELECT pg_notify('outbox', '')`,
  // TypeormPaymentRepository.insert
  insertPayment: `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, reference, remittance,
                             status, auto_match, match_status, match_rule, match_suggestions, metadata, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15::jsonb, $16::jsonb, 1, $17, $18)`,

  // CustomerReadModel.get
  customerDetail: `SELECT ${CUSTOMER_SELECT}, '' AS _keyset_value,
              c.total_invoiced::text, c.total_paid::text,
              ROUND(c.paid_days_sum::numeric / NULLIF(c.paid_invoice_count, 0), 1)::text AS average_days,
              c.last_payment_id, lp.amount::text AS last_payment_amount, c.last_payment_date::text,
              (SELECT COALESCE(SUM(p.amount - p.amount_applied), 0) FROM payments p
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

  // StatementReadModel.get
  statement: `SELECT c.id, c.name, c.email, c.external_id, c.billing_address, c.currency, t.name AS tenant_name,
              (SELECT COALESCE(SUM(l.debit - l.credit), 0) FROM ledger_entries l
                WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date < $3::date)::text AS opening_balance,
              (SELECT json_agg(json_build_array(to_char(l.entry_date, 'YYYY-MM-DD'), l.type, l.reference, l.description, l.debit::text, l.credit::text)
                               ORDER BY l.entry_date, l.seq)
                 FROM ledger_entries l
                WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date BETWEEN $3::date AND $4::date) AS entries,
              ag.*
         FROM customers c
         JOIN tenants t ON t.id = c.tenant_id
        CROSS JOIN LATERAL (
              SELECT ${aging('i.due_date', 'i.amount_due', '$4')}
                FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}) ag
        WHERE c.tenant_id = $1 AND c.id = $2`,
};
