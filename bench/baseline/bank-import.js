#!/usr/bin/env node
'use strict';
/**
 * The raw-SQL baseline of the bank-file import (issue 15): what a careful engineer would write
 * with pg alone to import a camt.053, to compare the service's importer with.
 *
 *   node bench/baseline/bank-import.js <database-url> <tenant-id> <file> [group size, 200]
 *
 * (bench/bank-import-baseline.js runs it as a child process and measures it.) Prints one JSON
 * object: the statement id, seconds to staged (what the service answers its 202 after) and to
 * completed, and the process's own CPU seconds and peak RSS.
 *
 * Staging is the service's: the file streamed through the service's compiled camt parser, the
 * statement row and its credits staged 1,000 at a time (`unnest`), in one transaction. Then, one
 * transaction per group of credits, set-wise:
 *   1. the group's pending credits and their identity claims (the service's statements);
 *   2. ONE statement reads and locks every invoice any credit of the group names (remittance
 *      numbers, and the reference's invoice-number keys: the expressions the service's indexes
 *      serve), joined to its customer; ONE reads every customer a payer key of the group names;
 *   3. in memory, credit by credit and in file order, the service's own matching policy and
 *      cash application (compiled domain code from dist/) decide on those rows, so a credit sees
 *      what earlier credits of the group applied; only a payer-identified customer's pool
 *      (rules 3–5) is read per credit, under the service's advisory lock;
 *   4. the group's rows are written with one statement per table: payments (their final state),
 *      applications, the invoices' changed columns, write-offs, ledger lines, the entries' and
 *      statement's counters (the service's statement), the outbox events with their NOTIFY.
 * No lease (one process imports), no re-check after locking (the candidates are locked before
 * the decision), no per-payment transaction state.
 */
const { createReadStream } = require('node:fs');
const { Client } = require('pg');

const DIST = '../../dist';
const { BANK_FILE_PARSERS } = require(`${DIST}/modules/bank-statements/infrastructure/parsers/bank-file-parsers`);
const { BankFileTally, entryKey, BANK_STATEMENT_COMPLETED } = require(`${DIST}/modules/bank-statements/domain/bank-statement`);
const { MAX_PAYER_TEXT, normalizePayerAccount, normalizePayerName } = require(`${DIST}/shared/domain/payer`);
const { invoiceNumberKeys, parseInvoiceReferences } = require(`${DIST}/modules/payments/domain/matching/invoice-reference.parser`);
const { CashMatchingPolicy } = require(`${DIST}/modules/payments/domain/matching/cash-matching.policy`);
const { CashApplication } = require(`${DIST}/modules/payments/domain/cash-application.service`);
const { Payment } = require(`${DIST}/modules/payments/domain/payment.aggregate`);
const { Invoice } = require(`${DIST}/modules/invoicing/domain/invoice.aggregate`);
const { TenantSettings } = require(`${DIST}/modules/settings/domain/tenant-settings`);
const { dateInTimeZone } = require(`${DIST}/modules/settings/domain/time-zone`);
const { Money } = require(`${DIST}/shared/domain/money`);
const { newId } = require(`${DIST}/shared/domain/ids`);
const { ValidationError } = require(`${DIST}/shared/domain/domain-error`);
const { paymentSql } = require('./payment-sql');
const { invoiceSnapshot } = require('./payments');

const STAGE_BATCH = 1000;
const MAX_NAMED = 500;
const policy = new CashMatchingPolicy();

const S = {
  // TypeormBankStatementRepository (create, stage, finishStaging, pending, claimIdentities, recordProcessed, complete)
  create: `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, created_at) VALUES ($1, $2, $3, 'processing', 0, $4)`,
  stage: `INSERT INTO bank_statement_entries (tenant_id, statement_id, position, account, entry_key, bank_entry_id, amount, currency,
                                           booking_date, method, payer_name, payer_account, payer_bank_id, reference, remittance)
       SELECT $1, $2, u.* FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::date[], $10::text[],
                                      $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[]) AS u`,
  finishStaging: `UPDATE bank_statements s SET entries_total = $3, entries_skipped = $4, errors = $5::jsonb, entries_processed = $4 + jsonb_array_length($5::jsonb)
        WHERE s.tenant_id = $1 AND s.id = $2`,
  pending: `SELECT position, account, entry_key, bank_entry_id, amount, currency, to_char(booking_date, 'YYYY-MM-DD') AS booking_date, method,
              payer_name, payer_account, payer_bank_id, reference, remittance
         FROM bank_statement_entries
        WHERE tenant_id = $1 AND statement_id = $2 AND status = 'pending' AND position >= $4
        ORDER BY position LIMIT $3`,
  claim: `INSERT INTO bank_entry_keys (tenant_id, account, entry_key, statement_id, position)
       SELECT $1, u.account, u.entry_key, $2, u.position FROM unnest($3::text[], $4::text[], $5::int[]) AS u (account, entry_key, position)
       ON CONFLICT DO NOTHING
       RETURNING position`,
  recordProcessed: `WITH done AS (
         UPDATE bank_statement_entries e
            SET status = CASE WHEN u.payment_id IS NOT NULL THEN 'created' WHEN u.rejected THEN 'rejected' ELSE 'existing' END, payment_id = u.payment_id
           FROM unnest($3::int[], $4::text[], $11::boolean[]) AS u (position, payment_id, rejected)
          WHERE e.tenant_id = $1 AND e.statement_id = $2 AND e.position = ANY($3::int[]) AND e.position = u.position AND e.status = 'pending'
         RETURNING 1)
       UPDATE bank_statements SET entries_processed = entries_processed + (SELECT count(*) FROM done),
              payments_created = payments_created + $5, payments_existing = payments_existing + $6,
              matched = matched + $7, needs_review = needs_review + $8, unmatched = unmatched + $9, errors = errors || $10::jsonb
        WHERE tenant_id = $1 AND id = $2`,
  complete: `UPDATE bank_statements s SET status = 'completed', completed_at = $3, lease_owner = NULL, lease_until = NULL
        WHERE s.tenant_id = $1 AND s.id = $2 AND s.status = 'processing'
          AND NOT EXISTS (SELECT 1 FROM bank_statement_entries e WHERE e.tenant_id = $1 AND e.statement_id = $2 AND e.status = 'pending')
       RETURNING s.id, s.format, s.status, s.entries_total, s.entries_processed, s.payments_created, s.payments_existing,
  s.entries_skipped, s.matched, s.needs_review, s.unmatched, s.errors, s.created_at, s.completed_at`,

  // The group's named invoices, locked: the candidate query's keys (sql-match-candidate.source.ts) over the whole group.
  named: `SELECT ${paymentSql.INVOICE_SELECT} FROM ${paymentSql.INVOICE_FROM}
          WHERE i.tenant_id = $1 AND i.status <> 'draft'
            AND (lower(i.number) = ANY($2::text[]) OR lower(regexp_replace(i.number, '[^A-Za-z0-9]', '', 'g')) = ANY($3::text[])
                 OR regexp_replace(substring(i.number from '^[A-Za-z]*[^A-Za-z0-9]*([0-9]+)$'), '^0+(?=[0-9])', '') = ANY($4::text[]))
          ORDER BY i.id FOR UPDATE OF i`,
  // The group's payer keys (SqlPayerDirectory.find for every key at once).
  payers: `SELECT k.kind, k.key, c.id, c.name, c.currency FROM customer_payer_keys k
         JOIN customers c ON c.tenant_id = k.tenant_id AND c.id = k.customer_id
        WHERE k.tenant_id = $1 AND (k.kind, k.key) IN (SELECT * FROM unnest($2::text[], $3::text[]))
        ORDER BY c.created_at, c.id`,

  insertPayments: `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, reference, remittance,
                             status, auto_match, match_status, match_rule, match_suggestions, match_write_offs, metadata, version, created_at, updated_at,
                             payer_name, payer_account, payer_bank_id, bank_entry_id, customer_source)
       SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::date[], $8::text[], $9::text[], $10::jsonb[],
                                  $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::int[], $19::timestamptz[], $20::timestamptz[],
                                  $21::text[], $22::text[], $23::text[], $24::text[], $25::text[]) AS u`,
  insertApplications: `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at, reversed_at)
       SELECT $1, u.*, NULL FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::timestamptz[]) AS u`,
  updateInvoices: `UPDATE invoices i SET status = u.status, amount_paid = u.amount_paid, amount_written_off = u.amount_written_off,
              paid_at = u.paid_at, paid_on = u.paid_on, version = u.version, updated_at = u.updated_at
         FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::timestamptz[], $7::date[], $8::int[], $9::timestamptz[], $10::int[])
              AS u (id, status, amount_paid, amount_written_off, paid_at, paid_on, version, updated_at, expected)
        WHERE i.tenant_id = $1 AND i.id = u.id AND i.version = u.expected`,
  insertWriteOffs: `INSERT INTO invoice_write_offs (tenant_id, id, invoice_id, amount, reason, created_at)
       SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::timestamptz[]) AS u`,
  insertLedger: `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::date[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::timestamptz[]) AS u`,
  // (written published when the tenant has no enabled endpoint, and then no NOTIFY: ADR 0057)
  outbox: `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at, published_at)
         SELECT $1, u.*, (SELECT outbox_published_at($1)) FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[]) AS u
         RETURNING published_at IS NULL AS unpublished)
       SELECT (SELECT pg_notify('outbox', '') FROM written WHERE unpublished LIMIT 1) AS notified`,
};

/** Columns as arrays, one per field, for `unnest`. */
function columns(rows, fields) {
  return fields.map((f) => rows.map((r) => r[f]));
}

async function stage(pg, tenantId, file) {
  const id = newId('bst');
  await pg.query('START TRANSACTION ISOLATION LEVEL READ COMMITTED');
  await pg.query({ name: 'bst_create', text: S.create, values: [tenantId, id, 'camt.053', new Date()] });
  const tally = new BankFileTally();
  let batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const c = (pick) => batch.map(pick);
    await pg.query({
      name: 'bst_stage',
      text: S.stage,
      values: [
        tenantId, id, c((x) => x.position), c((x) => x.account), c((x) => x.key), c((x) => x.bankEntryId), c((x) => x.amount), c((x) => x.currency),
        c((x) => x.bookingDate), c((x) => x.method ?? 'other'), c((x) => x.payer.name), c((x) => x.payer.account), c((x) => x.payer.bankId), c((x) => x.reference),
        c((x) => JSON.stringify(x.remittance.map((r) => ({ invoice_number: r.invoiceNumber, amount: r.amount })))),
      ],
    });
    batch = [];
  };
  for await (const item of BANK_FILE_PARSERS['camt.053'](createReadStream(file))) {
    const credit = tally.add(item);
    if (!credit) continue;
    batch.push({ ...credit, key: entryKey(credit) });
    if (batch.length >= STAGE_BATCH) await flush();
  }
  await flush();
  await pg.query({ name: 'bst_finish', text: S.finishStaging, values: [tenantId, id, tally.total, tally.skipped, JSON.stringify(tally.errors)] });
  await pg.query('COMMIT');
  return id;
}

async function tenantSettings(pg, tenantId) {
  const { rows: [row] } = await pg.query(paymentSql.settings, [tenantId]);
  return row?.tenant_id
    ? TenantSettings.restore({
        timezone: row.timezone,
        shortPayAmount: Number(row.amount),
        shortPayPercentScaled: BigInt(row.percent_scaled),
        payerNameMatching: row.payer_name_matching,
        remindersEnabled: row.reminders_enabled,
        reminderDays: row.reminder_days,
      })
    : TenantSettings.defaults();
}

/** ProcessBankStatementGroupHandler's paymentInput: the payment a credit makes. */
function paymentInput(statementId, credit) {
  const bounded = (value, max) => (value === null ? null : value.slice(0, max));
  return {
    amount: Number(credit.amount),
    currency: credit.currency,
    payment_date: credit.booking_date,
    method: credit.method ?? 'other',
    reference: credit.reference,
    remittance: credit.remittance.map((line) => ({ invoice_number: line.invoice_number, ...(line.amount !== null ? { amount: line.amount } : {}) })),
    payer: { name: bounded(credit.payer_name, MAX_PAYER_TEXT), account: bounded(credit.payer_account, 64), bank_id: bounded(credit.payer_bank_id, 64) },
    bank_entry_id: credit.bank_entry_id,
    metadata: { bank_statement_id: statementId, bank_account: credit.account },
  };
}

/** The group's locked invoices, findable by the keys the candidate query compares. */
class GroupInvoices {
  constructor() {
    this.byId = new Map();
    this.byNumber = new Map();
    this.byExact = new Map();
    this.byDigits = new Map();
  }
  add(row) {
    if (this.byId.has(row.id)) return this.byId.get(row.id);
    const invoice = Invoice.restore(invoiceSnapshot(row));
    this.byId.set(row.id, invoice);
    const keys = invoiceNumberKeys(row.number);
    const put = (map, key) => key !== null && key !== undefined && (map.get(key) ?? map.set(key, []).get(key)).push(invoice);
    put(this.byNumber, row.number.toLowerCase());
    put(this.byExact, keys.exactKey);
    put(this.byDigits, keys.numeric?.digits);
    return invoice;
  }
  /** What the candidate query would answer for one payment, as the policy sees it. */
  named({ ids, numbers, references }) {
    const found = new Set();
    for (const id of ids) if (this.byId.has(id)) found.add(this.byId.get(id));
    for (const n of numbers) for (const i of this.byNumber.get(n.trim().toLowerCase()) ?? []) found.add(i);
    for (const r of references) {
      for (const i of this.byExact.get(r.exactKey) ?? []) found.add(i);
      if (r.digits !== null) for (const i of this.byDigits.get(r.digits) ?? []) found.add(i);
    }
    return [...found]
      .filter((i) => i.status !== 'draft')
      .map(candidateOf)
      .sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id < b.id ? -1 : 1))
      .slice(0, MAX_NAMED);
  }
}

const candidateOf = (i) => ({
  id: i.id,
  number: i.number,
  customerId: i.customerId,
  currency: i.currency,
  status: i.status,
  amountDue: i.amountDue.amount,
  dueDate: i.dueDate,
  disputed: i.isDisputed,
});

/** `cursor.from`: every entry before it is processed (the service's worker reads on the same way, ADR 0046). */
async function processGroup(pg, tenantId, statementId, groupSize, settings, cursor) {
  const q = (name, text, values) => pg.query({ name, text, values });
  // Customers' figures moved once per customer at commit, as the service's parts do (ADR 45): one round trip still.
  await pg.query(`START TRANSACTION ISOLATION LEVEL READ COMMITTED; SELECT set_config('receivables.customer_figures', 'at_commit', true)`);
  const { rows: credits } = await q('bst_pending', S.pending, [tenantId, statementId, groupSize, cursor.from]);
  if (credits.length > 0) cursor.next = credits[credits.length - 1].position + 1;
  const done = { last: credits.length < groupSize };
  const outbox = [];
  if (credits.length > 0) {
    const { rows: claimed } = await q('bst_claim', S.claim, [tenantId, statementId, credits.map((c) => c.account), credits.map((c) => c.entry_key), credits.map((c) => c.position)]);
    const fresh = new Set(claimed.map((r) => r.position));
    const inputs = credits.map((c) => ({ credit: c, input: fresh.has(c.position) ? paymentInput(statementId, c) : null }));

    // 2. Everything the group's credits name, in two statements.
    const numbers = new Set();
    const exact = new Set();
    const digits = new Set();
    const accounts = [];
    for (const x of inputs.filter((i) => i.input)) {
      x.references = parseInvoiceReferences(x.input.reference?.trim() || null);
      for (const l of x.input.remittance) if (l.invoice_number?.trim()) numbers.add(l.invoice_number.trim().toLowerCase());
      for (const r of x.references) {
        exact.add(r.exactKey);
        if (r.digits !== null) digits.add(r.digits);
      }
      const account = normalizePayerAccount(x.input.payer.account?.trim() || null);
      const name = normalizePayerName(x.input.payer.name?.trim() || null);
      if (account) accounts.push(['account', account]);
      if (name && settings.payerNameMatching) accounts.push(['name', name]);
    }
    const group = new GroupInvoices();
    for (const row of (await q('bst_named', S.named, [tenantId, [...numbers], [...exact], [...digits]])).rows) group.add(row);
    const payerRows = accounts.length > 0 ? (await q('bst_payers', S.payers, [tenantId, accounts.map((a) => a[0]), accounts.map((a) => a[1])])).rows : [];

    const source = {
      named: async (query) => group.named(query),
      pool: async ({ customerId, currency, amount, oldestFirst, nearWithin = 0 }) => {
        // Rules 3–5 for a payer-identified customer: the service's pool query, its invoices locked as they are chosen.
        const { rows } =
          nearWithin > 0
            ? await q('pay_pool_near', paymentSql.poolNear, [tenantId, customerId, currency, amount, nearWithin])
            : await q('pay_pool', paymentSql.pool, [tenantId, customerId, currency, amount]);
        if (oldestFirst) throw new Error('oldest_first is not an import mode');
        return rows.map((r) => ({ id: r.id, number: r.number, customerId: r.customer_id, currency: r.currency, status: r.status, amountDue: Number(r.amount_due), dueDate: r.due_on, disputed: r.disputed }));
      },
      payers: async ({ kind, key, currency }) =>
        payerRows.filter((r) => r.kind === kind && r.key === key && r.currency === currency).slice(0, paymentSql.MAX_SUGGESTIONS + 1).map((r) => ({ id: r.id, name: r.name })),
    };

    // 3. Credit by credit, in memory.
    const payments = [];
    const applications = [];
    const writeOffs = [];
    const ledger = [];
    const processed = [];
    const touched = new Map();
    const post = (e) => e.debit === 0 && e.credit === 0 ? undefined : ledger.push({ id: newId('led'), ...e, created_at: new Date() });
    for (const { credit, input } of inputs) {
      if (!input) {
        processed.push({ position: credit.position, paymentId: null, matchStatus: null });
        continue;
      }
      let payment;
      const now = new Date();
      try {
        payment = Payment.record({
          id: newId('pay'),
          tenantId,
          customerId: null,
          amount: Money.of(input.amount, input.currency),
          paymentDate: input.payment_date,
          method: input.method,
          reference: input.reference?.trim() || null,
          remittance: input.remittance.map((l) => ({ invoiceId: null, invoiceNumber: l.invoice_number?.trim() || null, amount: l.amount ?? null })),
          payer: { name: input.payer.name ?? null, account: input.payer.account ?? null, bankId: input.payer.bank_id ?? null },
          bankEntryId: input.bank_entry_id ?? null,
          metadata: input.metadata,
          at: now,
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        processed.push({ position: credit.position, paymentId: null, matchStatus: null, error: { entry: credit.position, code: 'invalid_entry', message: error.message } });
        continue;
      }
      outbox.push(...payment.pullEvents());
      let saved = false;
      const payerNameMatching = payment.payer?.name ? settings.payerNameMatching : false;
      const shortPayTolerance = { of: (d) => settings.shortPayTolerance(d), max: settings.shortPayTolerance(Number.MAX_SAFE_INTEGER) };
      const lock = (customerId) => q('automatch_lock', paymentSql.advisoryLock, [`automatch:${tenantId}:${customerId}`]);
      for (let attempt = 1; attempt <= 3; attempt++) {
        const decision = await policy.decide(
          { amount: payment.amountUnapplied.amount, currency: payment.currency, customerId: payment.customerId, autoMatch: payment.autoMatch, remittance: payment.remittance, reference: payment.reference, payer: payment.payer, payerNameMatching, shortPayTolerance },
          source,
          lock,
        );
        const at = { now: new Date(), today: dateInTimeZone(new Date(), settings.timezone) };
        if (decision.identified) payment.identify(decision.identified.customerId, decision.identified.by, at.now);
        if (decision.outcome === 'unmatched') {
          saved = !!decision.identified;
          break;
        }
        if (decision.outcome === 'review') {
          payment.needsReview(decision.rule, decision.suggestions, at.now);
          saved = true;
          break;
        }
        // Invoices from a pool read are locked now (named ones already are), then compared with what was decided on.
        const missing = decision.allocations.map((a) => a.invoiceId).filter((id) => !group.byId.has(id));
        if (missing.length > 0) {
          for (const row of (await q('invoices_for_update', paymentSql.invoicesForUpdate, [tenantId, [...new Set(missing)]])).rows) group.add(row);
        }
        const unchanged = decision.basis.every((seen) => {
          const locked = group.byId.get(seen.id);
          return locked !== undefined && locked.status === seen.status && locked.amountDue.amount === seen.amountDue && locked.isDisputed === seen.disputed;
        });
        if (!unchanged) continue;
        const chosen = [...new Set(decision.allocations.map((a) => a.invoiceId))].sort().map((id) => group.byId.get(id));
        CashApplication.apply(payment, decision.allocations.map((a) => ({ invoice: group.byId.get(a.invoiceId), amount: a.amount })), 'auto', decision.rule, at, decision.writeOffs);
        // As the service saves them: each changed invoice (id order), its write-offs, ledger lines, events.
        for (const invoice of chosen) {
          const s = invoice.toSnapshot();
          if (s.version === invoice.expectedVersion) continue;
          if (!touched.has(invoice.id)) touched.set(invoice.id, { invoice, expected: invoice.expectedVersion });
          invoice.markPersisted();
          for (const w of invoice.pullWriteOffs()) writeOffs.push({ id: w.id, invoice_id: invoice.id, amount: w.amount, reason: w.reason, created_at: w.createdAt });
          for (const m of invoice.pullMovements()) {
            post({ customer_id: s.customerId, entry_date: m.date, type: m.type, source_type: 'invoice', source_id: s.id, reference: s.number, description: m.description, debit: m.debit, credit: m.credit });
          }
          outbox.push(...invoice.pullEvents());
        }
        saved = true;
        break;
      }
      if (saved) {
        for (const a of payment.applicationChanges.added) applications.push({ id: a.id, payment_id: payment.id, invoice_id: a.invoiceId, amount: a.amount, source: a.source, applied_at: a.appliedAt });
        payment.markApplicationsSaved();
        outbox.push(...payment.pullEvents());
      }
      for (const m of payment.pullMovements()) {
        post({
          customer_id: m.customerId, entry_date: m.date, type: m.type, source_type: 'payment', source_id: payment.id,
          reference: payment.reference ?? payment.id, description: `Payment received (${payment.method})`, debit: m.debit, credit: m.credit,
        });
      }
      payments.push({ payment, version: saved ? 2 : 1 });
      processed.push({ position: credit.position, paymentId: payment.id, matchStatus: payment.match.status });
    }

    // 4. The group's rows, one statement per table.
    if (payments.length > 0) {
      const rows = payments.map(({ payment: p, version }) => {
        const s = p.toSnapshot();
        return {
          id: s.id, customer_id: s.customerId, amount: s.amount, amount_applied: p.amountApplied.amount, currency: s.currency, payment_date: s.paymentDate,
          method: s.method, reference: s.reference,
          remittance: JSON.stringify(s.remittance.map((l) => ({ ...(l.invoiceId ? { invoice_id: l.invoiceId } : { invoice_number: l.invoiceNumber }), ...(l.amount !== null ? { amount: l.amount } : {}) }))),
          status: p.status, auto_match: s.autoMatch, match_status: s.match.status, match_rule: s.match.rule, match_suggestions: JSON.stringify(s.match.suggestions),
          match_write_offs: JSON.stringify(s.match.writeOffs.map((w) => ({ id: w.id, invoice_id: w.invoiceId, invoice_number: w.invoiceNumber, amount: w.amount }))),
          metadata: JSON.stringify(s.metadata), version, created_at: s.createdAt, updated_at: s.updatedAt,
          payer_name: s.payer?.name ?? null, payer_account: s.payer?.account ?? null, payer_bank_id: s.payer?.bankId ?? null, bank_entry_id: s.bankEntryId, customer_source: s.customerSource,
        };
      });
      await q('bst_payments', S.insertPayments, [tenantId, ...columns(rows, ['id', 'customer_id', 'amount', 'amount_applied', 'currency', 'payment_date', 'method', 'reference', 'remittance', 'status', 'auto_match', 'match_status', 'match_rule', 'match_suggestions', 'match_write_offs', 'metadata', 'version', 'created_at', 'updated_at', 'payer_name', 'payer_account', 'payer_bank_id', 'bank_entry_id', 'customer_source'])]);
    }
    if (applications.length > 0) await q('bst_applications', S.insertApplications, [tenantId, ...columns(applications, ['id', 'payment_id', 'invoice_id', 'amount', 'source', 'applied_at'])]);
    if (touched.size > 0) {
      const rows = [...touched.values()].map(({ invoice, expected }) => {
        const s = invoice.toSnapshot();
        return { id: s.id, status: s.status, amount_paid: s.amountPaid, amount_written_off: s.amountWrittenOff, paid_at: s.paidAt, paid_on: s.paidOn, version: s.version, updated_at: s.updatedAt, expected };
      });
      const { rowCount } = await q('bst_invoices', S.updateInvoices, [tenantId, ...columns(rows, ['id', 'status', 'amount_paid', 'amount_written_off', 'paid_at', 'paid_on', 'version', 'updated_at', 'expected'])]);
      if (rowCount !== rows.length) throw new Error(`invoices changed while locked: ${rowCount} of ${rows.length} updated`);
    }
    if (writeOffs.length > 0) await q('bst_write_offs', S.insertWriteOffs, [tenantId, ...columns(writeOffs, ['id', 'invoice_id', 'amount', 'reason', 'created_at'])]);
    if (ledger.length > 0) {
      await q('bst_ledger', S.insertLedger, [tenantId, ...columns(ledger, ['id', 'customer_id', 'entry_date', 'type', 'source_type', 'source_id', 'reference', 'description', 'debit', 'credit', 'created_at'])]);
    }
    const created = processed.filter((p) => p.paymentId !== null);
    const rejected = processed.flatMap((p) => (p.error ? [p.error] : []));
    const count = (f) => processed.filter(f).length;
    await q('bst_processed', S.recordProcessed, [
      tenantId, statementId, processed.map((p) => p.position), processed.map((p) => p.paymentId), created.length, processed.length - created.length - rejected.length,
      count((p) => p.matchStatus === 'matched' || p.matchStatus === 'partial'), count((p) => p.matchStatus === 'needs_review'), count((p) => p.matchStatus === 'unmatched'),
      JSON.stringify(rejected), processed.map((p) => p.error !== undefined),
    ]);
  }
  if (done.last) {
    const at = new Date();
    const { rows: [row] } = await q('bst_complete', S.complete, [tenantId, statementId, at]);
    if (row) {
      const object = {
        id: row.id, status: row.status, format: row.format, entries_total: Number(row.entries_total), entries_processed: Number(row.entries_processed),
        payments_created: Number(row.payments_created), payments_existing: Number(row.payments_existing), entries_skipped: Number(row.entries_skipped),
        matched: Number(row.matched), needs_review: Number(row.needs_review), unmatched: Number(row.unmatched), errors: row.errors, created_at: row.created_at.toISOString(), completed_at: row.completed_at ? row.completed_at.toISOString() : null,
      };
      outbox.push({ tenantId, type: BANK_STATEMENT_COMPLETED, aggregateType: 'bank_statement', aggregateId: statementId, occurredAt: at, data: { object } });
    }
  }
  if (outbox.length > 0) {
    await q('bst_outbox', S.outbox, [tenantId, outbox.map(() => newId('evt')), outbox.map((e) => e.type), outbox.map((e) => e.aggregateType), outbox.map((e) => e.aggregateId), outbox.map((e) => JSON.stringify(e.data)), outbox.map((e) => e.occurredAt)]);
  }
  await pg.query('COMMIT');
  if (cursor.next !== undefined) cursor.from = cursor.next;
  return done.last;
}

async function importFile(url, tenantId, file, groupSize) {
  const pg = new Client({ connectionString: url, application_name: 'bench-baseline-import' });
  await pg.connect();
  try {
    const t0 = Date.now();
    const statementId = await stage(pg, tenantId, file);
    const staged = Date.now();
    const settings = await tenantSettings(pg, tenantId);
    try {
      const cursor = { from: 0 };
      while (!(await processGroup(pg, tenantId, statementId, groupSize, settings, cursor)));
    } catch (error) {
      await pg.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return { statement_id: statementId, seconds_to_staged: (staged - t0) / 1000, seconds_to_completed: (Date.now() - t0) / 1000 };
  } finally {
    await pg.end();
  }
}

module.exports = { importFile };

if (require.main === module) {
  const [url, tenantId, file, group = '200'] = process.argv.slice(2);
  importFile(url, tenantId, file, Number(group))
    .then((result) => {
      const cpu = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ ...result, cpu_seconds: (cpu.user + cpu.system) / 1e6, max_rss_mb: Math.round(process.resourceUsage().maxRSS / 102.4) / 10 })}\n`);
    })
    .catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    });
}
