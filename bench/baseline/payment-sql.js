'use strict';
/**
 * The statements of POST /payments, copied verbatim from where the service runs them (file in
 * each comment; keep them in step). The open-invoice rule and the policy's limits come from the
 * compiled service.
 */
const { createHash } = require('node:crypto');
const { sql } = require('./sql');
const { openInvoiceSql } = require('../../dist/shared/infrastructure/query/receivable.sql');
const { MAX_SUGGESTIONS } = require('../../dist/modules/payments/domain/matching/cash-matching.policy');
const { COMBINATION_POOL_SIZE } = require('../../dist/modules/payments/domain/matching/combination-search');
const { combinedOutboxStatement } = require('../../dist/shared/infrastructure/outbox/outbox.sql');

// src/modules/payments/infrastructure/sql-match-candidate.source.ts
const COLUMNS = `id, number, customer_id, currency, status, amount_due, to_char(due_date, 'YYYY-MM-DD') AS due_on,
  dispute_status IS NOT DISTINCT FROM 'open' AS disputed`;
const OPEN_FOR_CUSTOMER = `tenant_id = $1 AND customer_id = $2 AND currency = $3 AND ${openInvoiceSql('')}
  AND dispute_status IS DISTINCT FROM 'open'`;
const ALNUM_KEY = `lower(regexp_replace(number, '[^A-Za-z0-9]', '', 'g'))`;
const DIGITS_KEY = `regexp_replace(substring(number from '^[A-Za-z]*[^A-Za-z0-9]*([0-9]+)$'), '^0+(?=[0-9])', '')`;
const MAX_NAMED = 500;
/** Lists up to this long are written as `IN ($n, …)`; longer ones as one array parameter. */
const MAX_LISTED = 8;

/** `expr IN ($n, …)` (the values appended to `values`), the array form for long lists, or null for none. */
function anyOf(expr, list, values) {
  if (list.length === 0) return null;
  if (list.length > MAX_LISTED) {
    values.push(list);
    return `${expr} = ANY($${values.length}::text[])`;
  }
  const placeholders = list.map((v) => (values.push(v), `$${values.length}`));
  return `${expr} IN (${placeholders.join(', ')})`;
}
const OLDEST_FIRST_BATCH = 200;
const POOL = `(SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} ORDER BY due_date, id LIMIT ${COMBINATION_POOL_SIZE})
           UNION
           (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due = $4 ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1})`;

// src/modules/invoicing/infrastructure/invoice.mapper.ts (INVOICE_SELECT, INVOICE_FROM, INVOICE_COLUMNS)
const INVOICE_SELECT = `i.tenant_id, i.id, i.number, i.customer_id, c.name AS customer_name, c.email AS customer_email,
       i.status, i.currency, i.issue_date::text AS issue_date, i.due_date::text AS due_date, i.po_number, i.memo, i.line_items,
       i.subtotal::text AS subtotal, i.discount_total::text AS discount_total, i.tax_total::text AS tax_total, i.total::text AS total,
       i.amount_paid::text AS amount_paid, i.amount_credited::text AS amount_credited, i.amount_written_off::text AS amount_written_off, i.dispute_status, i.dispute_reason, i.dispute_amount::text AS dispute_amount,
       i.dispute_opened_at, i.dispute_resolved_at, i.metadata, i.version, i.created_at, i.updated_at, i.finalized_at, i.paid_at, i.paid_on::text AS paid_on`;
const INVOICE_FROM = `invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id`;
/** TypeormInvoiceRepository's UPDATABLE: INVOICE_COLUMNS without tenant_id, id, created_at. */
const UPDATABLE = [
  'number', 'customer_id', 'status', 'currency', 'issue_date', 'due_date', 'po_number', 'memo',
  'line_items', 'subtotal', 'discount_total', 'tax_total', 'total', 'amount_paid', 'dispute_status', 'dispute_reason',
  'dispute_amount', 'dispute_opened_at', 'dispute_resolved_at', 'metadata', 'finalized_at', 'paid_at', 'paid_on', 'version',
  'updated_at', 'amount_credited', 'amount_written_off',
];

// src/modules/payments/infrastructure/payment.mapper.ts
const PAYMENT_COLUMNS = `p.tenant_id, p.id, p.customer_id, p.amount, p.currency, to_char(p.payment_date, 'YYYY-MM-DD') AS payment_date,
  p.method, p.reference, p.remittance, p.payer_name, p.payer_account, p.payer_bank_id, p.bank_entry_id, p.customer_source, p.auto_match, p.match_status, p.match_rule, p.match_suggestions, p.match_write_offs, p.metadata,
  p.version, p.created_at, p.updated_at`;
const PAYMENT_REFUNDS_COLUMN = `(SELECT json_agg(json_build_array(r.id, r.amount::text, r.reason, r.created_at) ORDER BY r.created_at, r.id)
     FROM refunds r WHERE r.tenant_id = p.tenant_id AND r.payment_id = p.id) AS refunds`;
const APPLICATION_COLUMNS = 'tenant_id, id, payment_id, invoice_id, amount, source, applied_at, reversed_at';
const APPLICATION_TYPES = ['::text', '::text', '::text', '::text', '::bigint', '::text', '::timestamptz', '::timestamptz'];

const paymentSql = {
  INVOICE_SELECT,
  INVOICE_FROM,
  MAX_SUGGESTIONS,
  COMBINATION_POOL_SIZE,
  OLDEST_FIRST_BATCH,
  // TypeormCustomerRepository.findById (the statement POST /invoices uses too)
  customerById: sql.customerById,
  // TypeormTenantSettingsRepository (read once per tenant by TenantSettingsCache)
  settings: `SELECT t.id AS tenant, s.tenant_id, s.timezone, s.short_pay_tolerance_amount::text AS amount,
       (s.short_pay_tolerance_percent * 10000)::bigint::text AS percent_scaled,
       s.payer_name_matching, s.reminders_enabled, s.reminder_days FROM tenants t LEFT JOIN tenant_settings s ON s.tenant_id = t.id WHERE t.id = $1`,
  // TypeormPaymentRepository.writeNew: a recorded payment's one write, once matching has decided, and its applications
  // (two writes held back, UnitOfWork.writeBehind)
  insertPayment: `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, reference, remittance,
                             status, auto_match, match_status, match_rule, match_suggestions, metadata, version, created_at, updated_at,
                             payer_name, payer_account, payer_bank_id, bank_entry_id, customer_source, amount_refunded, match_write_offs)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15::jsonb, $16::jsonb, $17, $18, $19, $20, $21, $22, $23, $24,
               $25, $26::jsonb)`,
  insertApplications: (added) => {
    const tuples = Array.from({ length: added }, (_, k) => `(${APPLICATION_TYPES.map((t, i) => `$${1 + k * 8 + i}${t}`).join(', ')})`).join(', ');
    return `INSERT INTO payment_applications (${APPLICATION_COLUMNS})
           SELECT v.* FROM (VALUES ${tuples}) AS v (${APPLICATION_COLUMNS})`;
  },
  // AdvisoryCustomerMatchingLock.lock
  advisoryLock: `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
  // AdvisoryCustomerMatchingLock.lockReadingCurrency: a payment's given customer, read as its matching lock is taken
  customerCurrencyLocking: `SELECT c.currency, pg_advisory_xact_lock(hashtextextended($3, 0)) AS locked FROM customers c WHERE c.tenant_id = $1 AND c.id = $2`,
  // SqlMatchCandidateSource: named, pool (with and without the short-pay part), oldestRun
  /** The statement for these keys (its text varies with how many of each) and its parameters; null for none. */
  named(tenantId, { ids, numbers, exactKeys, digitKeys }) {
    const values = [tenantId];
    const keys = [anyOf('id', ids, values), anyOf('lower(number)', numbers, values), anyOf(ALNUM_KEY, exactKeys, values), anyOf(DIGITS_KEY, digitKeys, values)].filter((k) => k !== null);
    if (keys.length === 0) return null;
    const text = `SELECT ${COLUMNS} FROM invoices
            WHERE tenant_id = $1 AND status <> 'draft' AND (${keys.join(' OR ')})
            ORDER BY due_date, id LIMIT ${MAX_NAMED}`;
    return { name: `pay_named_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`, text, values };
  },
  pool: `${POOL}
           `,
  poolNear: `${POOL}
           UNION
           (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due > $4 AND amount_due <= $4 + $5::bigint
             ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1})`,
  oldestRun: `SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND (due_date, id) > ($4::date, $5)
          ORDER BY due_date, id LIMIT ${OLDEST_FIRST_BATCH}`,
  // SqlPayerDirectory.find
  payers: `SELECT c.id, c.name FROM customer_payer_keys k
         JOIN customers c ON c.tenant_id = k.tenant_id AND c.id = k.customer_id
        WHERE k.tenant_id = $1 AND k.kind = $2 AND k.key = $3 AND c.currency = $4
        ORDER BY c.created_at, c.id LIMIT $5`,
  // TypeormInvoiceRepository.findByIdsForUpdate: one invoice, and several
  invoiceForUpdate: `SELECT ${INVOICE_SELECT} FROM ${INVOICE_FROM} WHERE i.tenant_id = $1 AND i.id = $2 FOR UPDATE OF i`,
  invoicesForUpdate: `SELECT ${INVOICE_SELECT} FROM ${INVOICE_FROM} WHERE i.tenant_id = $1 AND i.id = ANY($2::text[]) ORDER BY i.id FOR UPDATE OF i`,
  // TypeormInvoiceRepository.save (update)
  updateInvoice: `UPDATE invoices SET ${UPDATABLE.map((c, i) => `${c} = $${i + 4}`).join(', ')} WHERE tenant_id = $1 AND id = $2 AND version = $3 RETURNING id`,
  insertWriteOffs: `INSERT INTO invoice_write_offs (tenant_id, id, invoice_id, amount, reason, created_at)
         SELECT $1, w.id, $2, w.amount, w.reason, w.created_at
           FROM unnest($3::text[], $4::bigint[], $5::text[], $6::timestamptz[]) AS w (id, amount, reason, created_at)`,
  // TypeormPaymentRepository.save: the version-checked update with the new applications
  savePayment: (added) => {
    const update = `UPDATE payments SET customer_id = $3, amount_applied = $4, status = $5, match_status = $6, match_rule = $7,
                           match_suggestions = $8::jsonb, updated_at = $9, customer_source = $11, amount_refunded = $12,
                           match_write_offs = $13::jsonb, version = version + 1
        WHERE tenant_id = $1 AND id = $2 AND version = $10
        RETURNING version`;
    const tuples = Array.from({ length: added }, (_, k) => `(${APPLICATION_TYPES.map((t, i) => `$${14 + k * 8 + i}${t}`).join(', ')})`).join(', ');
    const insertAdded =
      added === 0
        ? ''
        : `, added AS (INSERT INTO payment_applications (${APPLICATION_COLUMNS})
                       SELECT v.* FROM (VALUES ${tuples}) AS v (${APPLICATION_COLUMNS})
                        WHERE EXISTS (SELECT 1 FROM updated))`;
    return `WITH updated AS (${update})${insertAdded} SELECT version FROM updated`;
  },
  // LedgerWriter.post
  ledgerPost: sql.ledgerPost,
  // OutboxWriter.write: the transaction's events in one statement, with its NOTIFY
  outbox: sql.outboxInsert,
  // OutboxWriter.write with writes (UnitOfWork.writeBehind, writeAtCommit): the service's own combination
  combined: combinedOutboxStatement,
  // SqlPaymentReadModel.get
  getPayment: `SELECT ${PAYMENT_COLUMNS}, ${PAYMENT_REFUNDS_COLUMN}, a.id AS app_id, a.invoice_id AS app_invoice_id, i.number AS app_invoice_number, a.amount AS app_amount,
              a.source AS app_source, a.applied_at AS app_applied_at, a.reversed_at AS app_reversed_at
         FROM payments p
         LEFT JOIN payment_applications a ON a.tenant_id = p.tenant_id AND a.payment_id = p.id
         LEFT JOIN invoices i ON i.tenant_id = a.tenant_id AND i.id = a.invoice_id
        WHERE p.tenant_id = $1 AND p.id = $2
        ORDER BY a.applied_at, a.id`,
};

module.exports = { paymentSql };
