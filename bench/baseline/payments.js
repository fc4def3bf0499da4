'use strict';
/**
 * POST /api/v1/payments in the baseline: the work the service does for a payment — record it,
 * match it automatically (contract §8, §14), apply it, post the ledger credit, write the outbox
 * events — as plain pg statements in one transaction; the 201 is the payment as written.
 *
 * The statements are the service's, in its order (sql.js says where each comes from):
 *   START TRANSACTION · customer (when given; with its matching lock when it will be matched) ·
 *   tenant settings (first request per tenant only; the service caches them too) · advisory lock
 *   per customer identified by matching · candidate queries (named invoices; the customer's pool for
 *   rules 3–5; payer keys) · invoices FOR UPDATE · UPDATE each invoice (+ write-offs, its ledger
 *   lines) · UPDATE payment with its new applications · ledger credit · outbox rows in one
 *   statement · COMMIT.
 *
 * What is decided and what the rows hold is the service's own pure domain code, compiled in
 * dist/ (no framework in it): the matching policy and reference parser, the Payment and Invoice
 * aggregates and CashApplication (state changes, event payloads, `previous_attributes`), and the
 * payment's JSON. What the baseline leaves out is the framework around them: Nest's DI,
 * controllers, pipes and interceptors, the CQRS buses, the unit of work (AsyncLocalStorage,
 * identity map), TypeORM's query runner, authentication, scopes, rate limiting, metrics.
 */
const DIST = '../../dist';
const { Payment } = require(`${DIST}/modules/payments/domain/payment.aggregate`);
const { presentPayment } = require(`${DIST}/modules/payments/domain/payment.snapshot`);
const { presentWrittenPayment } = require(`${DIST}/modules/payments/infrastructure/written-payment`);
const { Invoice } = require(`${DIST}/modules/invoicing/domain/invoice.aggregate`);
const { CashApplication } = require(`${DIST}/modules/payments/domain/cash-application.service`);
const { CashMatchingPolicy } = require(`${DIST}/modules/payments/domain/matching/cash-matching.policy`);
const { TenantSettings } = require(`${DIST}/modules/settings/domain/tenant-settings`);
const { dateInTimeZone } = require(`${DIST}/modules/settings/domain/time-zone`);
const { Money, normalizeCurrency } = require(`${DIST}/shared/domain/money`);
const { newId, isValidId } = require(`${DIST}/shared/domain/ids`);
const { DomainError } = require(`${DIST}/shared/domain/domain-error`);
const { createHash } = require('node:crypto');
const { paymentSql: sql } = require('./payment-sql');

const MAX_DECISIONS = 3;
const policy = new CashMatchingPolicy();
/** Tenant settings, read once per tenant (the service keeps them in memory too, invalidated by NOTIFY). */
const settingsCache = new Map();

// InvoiceMapper (src/modules/invoicing/infrastructure/invoice.mapper.ts), without TypeORM's helpers.
function invoiceSnapshot(r) {
  return {
    id: r.id,
    number: r.number,
    customerId: r.customer_id,
    customer: r.customer_name === null ? null : { id: r.customer_id, name: r.customer_name, email: r.customer_email },
    status: r.status,
    currency: r.currency,
    issueDate: r.issue_date,
    dueDate: r.due_date,
    poNumber: r.po_number,
    memo: r.memo,
    lineItems: r.line_items,
    subtotal: Number(r.subtotal),
    discountTotal: Number(r.discount_total),
    taxTotal: Number(r.tax_total),
    total: Number(r.total),
    amountPaid: Number(r.amount_paid),
    amountCredited: Number(r.amount_credited),
    amountWrittenOff: Number(r.amount_written_off),
    dispute: r.dispute_status
      ? { status: r.dispute_status, reason: r.dispute_reason ?? '', amount: r.dispute_amount === null ? 0 : Number(r.dispute_amount), openedAt: r.dispute_opened_at, resolvedAt: r.dispute_resolved_at }
      : null,
    metadata: r.metadata ?? {},
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    tenantId: r.tenant_id,
    finalizedAt: r.finalized_at,
    paidAt: r.paid_at,
    paidOn: r.paid_on,
  };
}

/** InvoiceMapper.toValues without the columns an update never changes (UPDATABLE order). */
function invoiceUpdateValues(s) {
  return [
    s.number, s.customerId, s.status, s.currency, s.issueDate, s.dueDate, s.poNumber, s.memo,
    JSON.stringify(s.lineItems), s.subtotal, s.discountTotal, s.taxTotal, s.total, s.amountPaid,
    s.dispute?.status ?? null, s.dispute?.reason ?? null, s.dispute?.amount ?? null, s.dispute?.openedAt ?? null,
    s.dispute?.resolvedAt ?? null, JSON.stringify(s.metadata), s.finalizedAt, s.paidAt, s.paidOn, s.version, s.updatedAt,
    s.amountCredited, s.amountWrittenOff,
  ];
}

const candidate = (r) => ({
  id: r.id,
  number: r.number,
  customerId: r.customer_id,
  currency: r.currency,
  status: r.status,
  amountDue: Number(r.amount_due),
  dueDate: r.due_on,
  disputed: r.disputed,
});

/** SqlMatchCandidateSource (src/modules/payments/infrastructure/sql-match-candidate.source.ts) on one client. */
function candidateSource(tq, tenantId) {
  return {
    named: async ({ ids, numbers, references }) => {
      const exactKeys = [...new Set(references.map((r) => r.exactKey))];
      const digitKeys = [...new Set(references.flatMap((r) => (r.digits === null ? [] : [r.digits])))];
      const statement = sql.named(tenantId, { ids, numbers: numbers.map((n) => n.trim().toLowerCase()), exactKeys, digitKeys });
      if (statement === null) return [];
      const { rows } = await tq(statement.name, statement.text, statement.values);
      return rows.map(candidate);
    },
    pool: async ({ customerId, currency, amount, oldestFirst, nearWithin = 0 }) => {
      const { rows } =
        nearWithin > 0
          ? await tq('pay_pool_near', sql.poolNear, [tenantId, customerId, currency, amount, nearWithin])
          : await tq('pay_pool', sql.pool, [tenantId, customerId, currency, amount]);
      const pool = rows.map(candidate);
      if (oldestFirst) pool.push(...(await oldestRun(tq, tenantId, customerId, currency, amount, pool)));
      return [...new Map(pool.map((c) => [c.id, c])).values()];
    },
    payers: async (query) => (await tq('pay_payers', sql.payers, [tenantId, query.kind, query.key, query.currency, sql.MAX_SUGGESTIONS + 1])).rows,
  };
}

async function oldestRun(tq, tenantId, customerId, currency, amount, loaded) {
  const oldest = [...loaded].sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id < b.id ? -1 : 1)).slice(0, sql.COMBINATION_POOL_SIZE);
  let covered = oldest.reduce((sum, c) => sum + c.amountDue, 0);
  if (oldest.length < sql.COMBINATION_POOL_SIZE || covered >= amount) return [];
  const more = [];
  let last = oldest[oldest.length - 1];
  while (covered < amount) {
    const { rows } = await tq('pay_oldest', sql.oldestRun, [tenantId, customerId, currency, last.dueDate, last.id]);
    for (const row of rows) {
      const c = candidate(row);
      more.push(c);
      covered += c.amountDue;
      if (covered >= amount) break;
    }
    if (rows.length < sql.OLDEST_FIRST_BATCH) break;
    last = more[more.length - 1];
  }
  return more;
}

async function tenantSettings(tq, tenantId) {
  let settings = settingsCache.get(tenantId);
  if (!settings) {
    const { rows: [row] } = await tq('pay_settings', sql.settings, [tenantId]);
    settings = row?.tenant_id
      ? TenantSettings.restore({
          timezone: row.timezone,
          shortPayAmount: Number(row.amount),
          shortPayPercentScaled: BigInt(row.percent_scaled),
          payerNameMatching: row.payer_name_matching,
          remindersEnabled: row.reminders_enabled,
          reminderDays: row.reminder_days,
        })
      : TenantSettings.defaults();
    settingsCache.set(tenantId, settings);
  }
  return settings;
}

/**
 * One transaction's writes, in the order the service's repositories make them: `outbox` collects
 * the events (written in one statement before commit, as the unit of work does).
 */
function writer(tq, outbox, pending, flush) {
  const unwritten = new WeakSet();
  // UnitOfWork.writeBehind: held back until the next statement (tq sends them first) or the outbox's;
  // a second write of the same key (a row, or the ledger: one line per statement) sends them first.
  const writeBehind = async (write, key) => {
    if (key !== undefined && pending.some((w) => w.key === key)) await flush();
    pending.push({ ...write, key });
  };
  const postLedger = (e) =>
    e.debit === 0 && e.credit === 0
      ? undefined
      : writeBehind({ sql: sql.ledgerPost, params: [e.tenantId, newId('led'), e.customerId, e.entryDate, e.type, e.sourceType, e.sourceId, e.reference, e.description, e.debit, e.credit, new Date()] }, 'ledger_entries');

  async function paymentMovements(payment) {
    for (const m of payment.pullMovements()) {
      await postLedger({
        tenantId: payment.tenantId,
        customerId: m.customerId,
        entryDate: m.date,
        type: m.type,
        sourceType: m.refundId ? 'refund' : 'payment',
        sourceId: m.refundId ?? payment.id,
        reference: m.refundId ?? payment.reference ?? payment.id,
        description: m.refundId ? `Refund of payment ${payment.reference ?? payment.id}` : `Payment received (${payment.method})`,
        debit: m.debit,
        credit: m.credit,
      });
    }
  }

  return {
    /** TypeormPaymentRepository.insert: payment.created is published now, the row written once matching has decided. */
    recordNew(payment) {
      payment.version = 1;
      unwritten.add(payment);
      outbox.push(...payment.pullEvents());
    },
    /** The row of a payment not written yet, as it is now, with its new applications (writeNew). */
    async writeNewIfUnwritten(payment) {
      if (!unwritten.delete(payment)) return false;
      const s = payment.toSnapshot();
      const added = payment.applicationChanges.added;
      const params = [
        s.tenantId, s.id, s.customerId, s.amount, payment.amountApplied.amount, s.currency, s.paymentDate, s.method, s.reference,
        remittanceJson(s.remittance), payment.status, s.autoMatch, s.match.status, s.match.rule,
        JSON.stringify(s.match.suggestions), JSON.stringify(s.metadata), payment.version, s.createdAt, s.updatedAt,
        s.payer?.name ?? null, s.payer?.account ?? null, s.payer?.bankId ?? null, s.bankEntryId, s.customerSource,
        payment.amountRefunded.amount, writeOffsJson(s.match.writeOffs),
      ];
      await writeBehind({ sql: sql.insertPayment, params });
      if (added.length > 0) {
        const values = [];
        for (const a of added) values.push(s.tenantId, a.id, s.id, a.invoiceId, a.amount, a.source, a.appliedAt, a.reversedAt);
        await writeBehind({ sql: sql.insertApplications(added.length), params: values });
      }
      payment.markApplicationsSaved();
      return true;
    },
    async savePayment(payment) {
      if (unwritten.has(payment)) {
        // Saved while matching a payment not written yet: its one write, at the version an update would give it.
        payment.version += 1;
        await this.writeNewIfUnwritten(payment);
        outbox.push(...payment.pullEvents());
        await paymentMovements(payment);
        return;
      }
      const s = payment.toSnapshot();
      const added = payment.applicationChanges.added;
      const params = [
        s.tenantId, s.id, s.customerId, payment.amountApplied.amount, payment.status, s.match.status, s.match.rule,
        JSON.stringify(s.match.suggestions), s.updatedAt, payment.version, s.customerSource, payment.amountRefunded.amount,
        writeOffsJson(s.match.writeOffs),
      ];
      for (const a of added) params.push(s.tenantId, a.id, s.id, a.invoiceId, a.amount, a.source, a.appliedAt, a.reversedAt);
      const { rows } = await tq(`payment_save_${added.length}`, sql.savePayment(added.length), params);
      if (rows.length === 0) throw Object.assign(new Error(`Payment ${s.id} was changed concurrently; retry the request.`), { status: 409 });
      payment.version = rows[0].version;
      payment.markApplicationsSaved();
      outbox.push(...payment.pullEvents());
      await paymentMovements(payment);
    },
    paymentMovements,
    async saveInvoice(invoice) {
      const s = invoice.toSnapshot();
      if (s.version === invoice.expectedVersion) return;
      await writeBehind({
        sql: sql.updateInvoice,
        params: [s.tenantId, s.id, invoice.expectedVersion, ...invoiceUpdateValues(s)],
        written: (rows) => {
          if (rows === 0) throw Object.assign(new Error(`Invoice ${s.number} was changed concurrently; retry.`), { status: 409 });
        },
      }, `invoice:${s.tenantId}:${s.id}`);
      invoice.markPersisted();
      const writeOffs = invoice.pullWriteOffs();
      if (writeOffs.length > 0) {
        await writeBehind({ sql: sql.insertWriteOffs, params: [s.tenantId, s.id, writeOffs.map((w) => w.id), writeOffs.map((w) => w.amount), writeOffs.map((w) => w.reason), writeOffs.map((w) => w.createdAt)] });
      }
      for (const m of invoice.pullMovements()) {
        await postLedger({ tenantId: s.tenantId, customerId: s.customerId, entryDate: m.date, type: m.type, sourceType: 'invoice', sourceId: s.id, reference: s.number, description: m.description, debit: m.debit, credit: m.credit });
      }
      outbox.push(...invoice.pullEvents());
    },
    async writeOutbox() {
      if (pending.length > 0) {
        // OutboxWriter.write with writes: the held-back writes and the events in one statement.
        const writes = pending.splice(0);
        const { sql: text, params } = sql.combined(outbox, writes);
        const { rows: [row] } = await tq(statementName(text), text, params);
        writes.forEach((w, i) => w.written?.(row[`w${i}`]));
        return;
      }
      if (outbox.length === 0) return;
      await tq('outbox_insert', sql.outbox, [
        outbox.map((e) => e.tenantId), outbox.map(() => newId('evt')), outbox.map((e) => e.type), outbox.map((e) => e.aggregateType),
        outbox.map((e) => e.aggregateId), outbox.map((e) => JSON.stringify(e.data)), outbox.map((e) => e.occurredAt),
      ]);
    },
  };
}

function writeOffsJson(writeOffs) {
  return JSON.stringify(writeOffs.map((w) => ({ id: w.id, invoice_id: w.invoiceId, invoice_number: w.invoiceNumber, amount: w.amount })));
}

function remittanceJson(lines) {
  return JSON.stringify(
    lines.map((l) => ({ ...(l.invoiceId ? { invoice_id: l.invoiceId } : { invoice_number: l.invoiceNumber }), ...(l.amount !== null ? { amount: l.amount } : {}) })),
  );
}

/** AutoMatchPaymentHandler.handle, on the payment just inserted (its row is this transaction's). */
async function autoMatch(tq, w, payment, settings) {
  if (payment.autoMatch === 'none') return;
  const lock = (customerId) => tq('automatch_lock', sql.advisoryLock, [`automatch:${payment.tenantId}:${customerId}`]);
  // A given customer's lock was taken as it was read (recordPayment), as the service does.
  const source = candidateSource(tq, payment.tenantId);
  const payerNameMatching = payment.payer?.name ? settings.payerNameMatching : false;
  const shortPayTolerance = { of: (amountDue) => settings.shortPayTolerance(amountDue), max: settings.shortPayTolerance(Number.MAX_SAFE_INTEGER) };
  const lockIdentified = (customerId) => (customerId === payment.customerId ? Promise.resolve() : lock(customerId));
  for (let attempt = 1; attempt <= MAX_DECISIONS; attempt++) {
    const decision = await policy.decide(
      {
        amount: payment.amountUnapplied.amount,
        currency: payment.currency,
        customerId: payment.customerId,
        autoMatch: payment.autoMatch,
        remittance: payment.remittance,
        reference: payment.reference,
        payer: payment.payer,
        payerNameMatching,
        shortPayTolerance,
      },
      source,
      lockIdentified,
    );
    const at = businessTime(settings);
    if (decision.identified) payment.identify(decision.identified.customerId, decision.identified.by, at.now);
    if (decision.outcome === 'unmatched') {
      if (decision.identified) await w.savePayment(payment);
      return;
    }
    if (decision.outcome === 'review') {
      payment.needsReview(decision.rule, decision.suggestions, at.now);
      await w.savePayment(payment);
      return;
    }
    const ids = [...new Set(decision.allocations.map((a) => a.invoiceId))];
    const { rows } =
      ids.length === 1
        ? await tq('invoice_for_update', sql.invoiceForUpdate, [payment.tenantId, ids[0]])
        : await tq('invoices_for_update', sql.invoicesForUpdate, [payment.tenantId, ids]);
    const locked = rows.map((r) => Invoice.restore(invoiceSnapshot(r)));
    const byId = new Map(locked.map((i) => [i.id, i]));
    const unchanged = decision.basis.every((seen) => {
      const now = byId.get(seen.id);
      return now !== undefined && now.status === seen.status && now.amountDue.amount === seen.amountDue && now.isDisputed === seen.disputed;
    });
    if (!unchanged) continue;
    CashApplication.apply(payment, decision.allocations.map((a) => ({ invoice: byId.get(a.invoiceId), amount: a.amount })), 'auto', decision.rule, at, decision.writeOffs);
    for (const invoice of locked) await w.saveInvoice(invoice);
    await w.savePayment(payment);
    return;
  }
}

function businessTime(settings) {
  const now = new Date();
  return { now, today: dateInTimeZone(now, settings.timezone) };
}

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A prepared statement's name for a text that varies (a combination of writes). */
const statementName = (text) => `pay_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/** RecordPaymentHandler + the auto-match handler + the repositories' writes, in one transaction; the payment as written. */
async function recordPayment(pool, tenantId, input) {
  const client = await pool.connect();
  /** Writes held back (UnitOfWork.writeBehind): sent before the next statement, one alone, several in one. */
  const pending = [];
  const send = (name, text, values) => client.query({ name, text, values });
  const flush = async () => {
    if (pending.length === 0) return;
    const writes = pending.splice(0);
    if (writes.length === 1) {
      const result = await send(statementName(writes[0].sql), writes[0].sql, writes[0].params);
      return writes[0].written?.(result.rowCount ?? result.rows.length);
    }
    const { sql: text, params } = sql.combined([], writes);
    const { rows: [row] } = await send(statementName(text), text, params);
    writes.forEach((w, i) => w.written?.(row[`w${i}`]));
  };
  const tq = async (name, text, values) => {
    await flush();
    return send(name, text, values);
  };
  try {
    await client.query('START TRANSACTION ISOLATION LEVEL READ COMMITTED');
    const customerId = input.customer_id ?? null;
    let currency = input.currency === undefined ? undefined : normalizeCurrency(input.currency);
    if (customerId !== null) {
      // RecordPaymentHandler.currencyOf: with the matching lock when the payment will be matched.
      const customer = !isValidId(customerId, 'cus')
        ? null
        : input.auto_match !== 'none'
          ? (await tq('customer_currency_locking', sql.customerCurrencyLocking, [tenantId, customerId, `automatch:${tenantId}:${customerId}`])).rows[0]
          : (await tq('customer_by_id', sql.customerById, [tenantId, customerId])).rows[0];
      if (!customer) throw new HttpError(404, 'not_found', `Customer ${customerId} not found`);
      if (currency !== undefined && currency !== customer.currency) throw new HttpError(422, 'currency_mismatch', 'currency mismatch');
      currency = customer.currency;
    }
    if (currency === undefined) throw new HttpError(400, 'validation_error', 'currency is required for a payment without customer_id');
    const settings = await tenantSettings(tq, tenantId);
    const at = businessTime(settings);
    const payment = Payment.record({
      id: newId('pay'),
      tenantId,
      customerId,
      amount: Money.of(input.amount, currency),
      paymentDate: input.payment_date ?? at.today,
      method: input.method ?? 'other',
      reference: input.reference?.trim() || null,
      remittance: (input.remittance ?? []).map((l) => ({ invoiceId: l.invoice_id ?? null, invoiceNumber: l.invoice_number?.trim() || null, amount: l.amount ?? null })),
      payer: input.payer ? { name: input.payer.name ?? null, account: input.payer.account ?? null, bankId: input.payer.bank_id ?? null } : null,
      bankEntryId: input.bank_entry_id ?? null,
      autoMatch: input.auto_match,
      metadata: input.metadata ?? {},
      at: at.now,
    });
    const outbox = [];
    const w = writer(tq, outbox, pending, flush);
    w.recordNew(payment);
    await autoMatch(tq, w, payment, settings);
    // Not saved by matching (auto_match none, unmatched): written now; then what its movements leave.
    await w.writeNewIfUnwritten(payment);
    await w.paymentMovements(payment);
    await w.writeOutbox();
    await client.query('COMMIT');
    return payment.toSnapshot();
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** SqlPaymentReadModel.get: the payment once per application, into its public JSON. */
async function readPayment(q, tenantId, id) {
  const { rows } = await q('payment_get', sql.getPayment, [tenantId, id]);
  if (rows.length === 0) return null;
  const r = rows[0];
  const applications = rows
    .filter((a) => a.app_id !== null)
    .map((a) => ({ id: a.app_id, invoiceId: a.app_invoice_id, invoiceNumber: a.app_invoice_number, amount: Number(a.app_amount), source: a.app_source, appliedAt: a.app_applied_at, reversedAt: a.app_reversed_at }));
  return presentPayment({
    tenantId: r.tenant_id,
    id: r.id,
    customerId: r.customer_id,
    amount: Number(r.amount),
    currency: r.currency,
    paymentDate: r.payment_date,
    method: r.method,
    reference: r.reference,
    remittance: r.remittance.map((l) => ({ invoiceId: l.invoice_id ?? null, invoiceNumber: l.invoice_number ?? null, amount: l.amount ?? null })),
    payer: r.payer_name === null && r.payer_account === null && r.payer_bank_id === null ? null : { name: r.payer_name, account: r.payer_account, bankId: r.payer_bank_id },
    bankEntryId: r.bank_entry_id,
    customerSource: r.customer_source ?? (r.customer_id === null ? null : r.match_rule === 'manual' ? 'manual' : 'request'),
    autoMatch: r.auto_match,
    metadata: r.metadata,
    match: {
      status: r.match_status,
      rule: r.match_rule,
      suggestions: r.match_suggestions,
      writeOffs: (r.match_write_offs ?? []).map((x) => ({ id: x.id, invoiceId: x.invoice_id, invoiceNumber: x.invoice_number, amount: x.amount, reason: 'short_pay' })),
    },
    applications,
    refunds: (r.refunds ?? []).map(([rid, amount, reason, createdAt]) => ({ id: rid, amount: Number(amount), reason, createdAt: new Date(createdAt) })),
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}

function registerPayments(app, q, pool) {
  app.post('/api/v1/payments', async (req, reply) => {
    const tenantId = req.headers['x-tenant-id'];
    try {
      const payment = await recordPayment(pool, tenantId, req.body ?? {});
      reply.code(201);
      // As the service: the 201 is the payment as written, not a read of it after commit.
      return presentWrittenPayment(payment);
    } catch (e) {
      if (e instanceof HttpError || e.status) return reply.code(e.status).send({ code: e.code ?? 'conflict', message: e.message });
      if (e instanceof DomainError) return reply.code(e.code === 'not_found' ? 404 : e.code === 'conflict' ? 409 : 422).send({ code: e.code, message: e.message });
      throw e;
    }
  });
}

module.exports = { registerPayments, recordPayment, readPayment, invoiceSnapshot };
