'use strict';
/**
 * The baseline's resource endpoints: the service's SQL, statement for statement (copied from
 * the modules' read models and repositories; keep them in step), with the rows mapped to the
 * same JSON by hand. No validation layer, no DI, no ORM, no auth, no rate limit; the tenant
 * comes from the `x-tenant-id` header.
 */
const { randomBytes } = require('node:crypto');
const { sql } = require('./sql');
const { registerPayments } = require('./payments');
// The service's open / overdue rule itself (compiled by `npm run bench` before it starts this server).
const { isOverdueInvoice } = require('../../dist/shared/domain/receivable');
const { overdueInvoiceSql } = require('../../dist/shared/infrastructure/query/receivable.sql');

const today = () => new Date().toISOString().slice(0, 10);
const num = (v) => (v === null || v === undefined ? null : Number(v));
const DAY = 86_400_000;
const daysBetween = (a, b) => Math.round((Date.parse(b) - Date.parse(a)) / DAY);

/** A TypeID-shaped id (the baseline does not need time ordering beyond what the clock gives). */
function newId(prefix) {
  const ms = Date.now();
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let out = '';
  for (let i = 0; i < 26; i++) {
    let v = 0;
    for (let k = 0; k < 5; k++) {
      const bit = i * 5 - 2 + k;
      v = (v << 1) | (bit < 0 ? 0 : (b[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out += alphabet[v];
  }
  return `${prefix}_${out}`;
}

function presentInvoice(r, day) {
  const total = Number(r.total);
  const paid = Number(r.amount_paid);
  const credited = Number(r.amount_credited);
  const writtenOff = Number(r.amount_written_off);
  const due = total - paid - credited - writtenOff;
  const overdue = isOverdueInvoice({ status: r.status, amountDue: due, dueDate: r.due_date }, day);
  return {
    id: r.id,
    number: r.number,
    customer_id: r.customer_id,
    customer: r.customer_name === null ? null : { id: r.customer_id, name: r.customer_name, email: r.customer_email },
    status: r.status,
    currency: r.currency,
    issue_date: r.issue_date,
    due_date: r.due_date,
    po_number: r.po_number,
    memo: r.memo,
    line_items: r.line_items.map((l) => ({
      id: l.id,
      description: l.description,
      quantity: Number(l.quantity),
      unit_amount: l.unit_amount,
      discount_amount: l.discount_amount,
      tax_rate: Number(l.tax_rate),
      amount: l.amount,
      tax_amount: l.tax_amount,
    })),
    subtotal: Number(r.subtotal),
    discount_total: Number(r.discount_total),
    tax_total: Number(r.tax_total),
    total,
    amount_paid: paid,
    amount_credited: credited,
    amount_written_off: writtenOff,
    amount_due: due,
    overdue,
    days_past_due: overdue ? daysBetween(r.due_date, day) : 0,
    dispute: r.dispute_status
      ? {
          status: r.dispute_status,
          reason: r.dispute_reason,
          amount: num(r.dispute_amount),
          opened_at: r.dispute_opened_at.toISOString(),
          resolved_at: r.dispute_resolved_at ? r.dispute_resolved_at.toISOString() : null,
        }
      : null,
    metadata: r.metadata ?? {},
    version: r.version,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** As InvoiceReadModel.get: the row, then (when found) its active applications. */
async function invoiceDetail(q, tenantId, id) {
  const { rows } = await q('invoice_by_id', sql.invoiceById, [tenantId, id]);
  if (!rows[0]) return null;
  const r = rows[0];
  return {
    ...presentInvoice(r, today()),
    payments: (r.payment_ids ?? []).map((paymentId, k) => ({ payment_id: paymentId, application_id: r.application_ids[k], amount: Number(r.amounts[k]), applied_at: r.applied_ats[k].toISOString() })),
    credit_notes: (r.credit_note_ids ?? []).map((id, k) => ({ credit_note_id: id, application_id: r.credit_application_ids[k], amount: Number(r.credit_amounts[k]), applied_at: r.credit_applied_ats[k].toISOString() })),
    write_offs: (r.write_off_ids ?? []).map((id, k) => ({ id, amount: Number(r.write_off_amounts[k]), reason: r.write_off_reasons[k], created_at: r.write_off_ats[k].toISOString() })),
  };
}

const SORTS = {
  created_at: { col: 'i.created_at', type: 'timestamptz' },
  issue_date: { col: 'i.issue_date', type: 'date' },
  due_date: { col: 'i.due_date', type: 'date' },
  number: { col: 'i.number', type: 'text' },
  total: { col: 'i.total', type: 'bigint' },
  amount_due: { col: 'i.amount_due', type: 'bigint' },
};

/** The list query the service builds for these filters (same WHERE, ORDER BY, LIMIT). */
function listSql(tenantId, query, day) {
  const raw = query.sort ?? '-created_at';
  const desc = raw.startsWith('-');
  const sort = SORTS[raw.replace(/^[-+]/, '')];
  const params = [tenantId];
  const where = ['i.tenant_id = $1'];
  const add = (f, v) => {
    params.push(v);
    where.push(f(`$${params.length}`));
  };
  if (query.status) where.push(`i.status IN (${[...new Set(query.status.split(','))].filter((st) => /^[a-z_]+$/.test(st)).sort().map((st) => `'${st}'`).join(', ')})`);
  if (query.customer_id) add((p) => `i.customer_id = ${p}`, query.customer_id);
  if (query.currency) add((p) => `i.currency = ${p}`, query.currency.toLowerCase());
  if (query.overdue !== undefined) {
    const o = (p) => `(${overdueInvoiceSql(p, 'i.')})`;
    add((p) => (query.overdue === 'true' ? o(p) : `NOT ${o(p)}`), day);
  }
  if (query.due_date_from) add((p) => `i.due_date >= ${p}::date`, query.due_date_from);
  if (query.due_date_to) add((p) => `i.due_date <= ${p}::date`, query.due_date_to);
  let keyset = 'TRUE';
  if (query.cursor) {
    // The service's cursor is `<body>.<HMAC>`; the baseline reads the body (it does not check the signature).
    const c = JSON.parse(Buffer.from(query.cursor.slice(0, query.cursor.lastIndexOf('.')), 'base64url').toString('utf8'));
    params.push(c.v, c.id);
    keyset = `(${sort.col}, i.id) ${desc ? '<' : '>'} ($${params.length - 1}::${sort.type}, $${params.length})`;
  }
  where.push(keyset);
  const limit = query.limit ? Number(query.limit) : 25;
  params.push(limit + 1);
  const dir = desc ? 'DESC' : 'ASC';
  return {
    name: `list:${Object.keys(query).filter((k) => k !== 'cursor' && k !== 'limit').sort().join(',')}:${raw}:${!!query.cursor}`,
    text: `SELECT ${sql.INVOICE_VIEW_SELECT}, (${sort.col})::text AS _keyset_value
             FROM ${sql.INVOICE_FROM}
            WHERE ${where.join(' AND ')}
            ORDER BY ${sort.col} ${dir}, i.id ${dir}
            LIMIT $${params.length}`,
    values: params,
    limit,
  };
}

/** Line math per contract §7 on integers (quantity and tax rate scaled by 10^4). */
function lineItems(inputs) {
  const scaled = (v) => {
    const [w, f = ''] = String(v).split('.');
    return Number(w) * 10_000 + Number(f.padEnd(4, '0'));
  };
  const half = (x, d) => Math.floor((x + d / 2) / d);
  return inputs.map((l) => {
    const q = scaled(l.quantity);
    const rate = scaled(l.tax_rate ?? 0);
    const gross = half(q * l.unit_amount, 10_000);
    const discount = l.discount_amount ?? 0;
    const amount = gross - discount;
    const text = (s) => {
      const frac = String(s % 10_000).padStart(4, '0').replace(/0+$/, '');
      return frac ? `${Math.floor(s / 10_000)}.${frac}` : String(Math.floor(s / 10_000));
    };
    return { id: newId('li'), description: l.description, quantity: text(q), unit_amount: l.unit_amount, discount_amount: discount, tax_rate: text(rate), gross_amount: gross, amount, tax_amount: half(amount * rate, 1_000_000) };
  });
}

async function transaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    const result = await work((name, text, values) => client.query({ name, text, values }));
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

function registerInvoices(app, q, pool) {
  app.get('/api/v1/invoices/:id', async (req, reply) => {
    const invoice = await invoiceDetail(q, req.headers['x-tenant-id'], req.params.id);
    if (!invoice) return reply.code(404).send({ code: 'not_found' });
    reply.header('etag', `"${invoice.version}"`);
    return invoice;
  });

  app.get('/api/v1/invoices', async (req) => {
    const day = today();
    const s = listSql(req.headers['x-tenant-id'], req.query, day);
    const { rows } = await pool.query({ name: s.name, text: s.text, values: s.values });
    const more = rows.length > s.limit;
    const page = more ? rows.slice(0, s.limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map((r) => presentInvoice(r, day)),
      has_more: more,
      next_cursor: more ? Buffer.from(JSON.stringify({ v: last._keyset_value, id: last.id, f: '' })).toString('base64url') : null,
    };
  });

  // The statements CreateInvoiceHandler + TypeormInvoiceRepository.save + LedgerWriter +
  // OutboxWriter run, in one transaction; then the detail query.
  app.post('/api/v1/invoices', async (req, reply) => {
    const tenantId = req.headers['x-tenant-id'];
    const body = req.body;
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const id = await transaction(pool, async (tq) => {
      const { rows: [customer] } = await tq('customer_by_id', sql.customerById, [tenantId, body.customer_id]);
      if (!customer) return null;
      const { rows: [counter] } = await tq('number_next', sql.nextNumber, [tenantId]);
      const number = `INV-${counter.last_value.padStart(6, '0')}`;
      await tq('number_taken', sql.numberTaken, [tenantId, number]);
      const lines = lineItems(body.line_items);
      const subtotal = lines.reduce((t, l) => t + l.gross_amount, 0);
      const discount = lines.reduce((t, l) => t + l.discount_amount, 0);
      const tax = lines.reduce((t, l) => t + l.tax_amount, 0);
      const total = subtotal - discount + tax;
      const invoiceId = newId('inv');
      const due = new Date(Date.parse(`${day}T00:00:00Z`) + customer.payment_terms_days * DAY).toISOString().slice(0, 10);
      await tq('invoice_insert', sql.insertInvoice, [
        tenantId, invoiceId, number, customer.id, 'open', customer.currency, day, due, body.po_number ?? null, body.memo ?? null,
        JSON.stringify(lines), subtotal, discount, tax, total, 0, null, null, null, null, null, JSON.stringify(body.metadata ?? {}), now, null, null, 1, now, now, 0, 0,
      ]);
      await tq('ledger_post', sql.ledgerPost, [tenantId, newId('led'), customer.id, day, 'invoice', 'invoice', invoiceId, number, `Invoice ${number}`, total, 0, now]);
      const object = { id: invoiceId, number, status: 'open', total };
      await tq('outbox_insert', sql.outboxInsert, [
        [tenantId, tenantId], [newId('evt'), newId('evt')], ['invoice.created', 'invoice.finalized'], ['invoice', 'invoice'],
        [invoiceId, invoiceId], [JSON.stringify({ object }), JSON.stringify({ object })], [now, now],
      ]);
      return invoiceId;
    });
    if (!id) return reply.code(404).send({ code: 'not_found' });
    const invoice = await invoiceDetail(q, tenantId, id);
    reply.code(201).header('etag', `"${invoice.version}"`);
    return invoice;
  });
}

function aging(row) {
  return {
    current: Number(row?.current ?? 0),
    days_1_30: Number(row?.days_1_30 ?? 0),
    days_31_60: Number(row?.days_31_60 ?? 0),
    days_61_90: Number(row?.days_61_90 ?? 0),
    days_over_90: Number(row?.days_over_90 ?? 0),
  };
}

function registerCustomers(app, q) {
  app.get('/api/v1/customers/:id', async (req, reply) => {
    const tenantId = req.headers['x-tenant-id'];
    const id = req.params.id;
    const day = today();
    const asOf = req.query.as_of ?? day;
    const { rows: [row] } = await q('customer_detail', sql.customerDetail, [tenantId, id, asOf, day]);
    if (!row) return reply.code(404).send({ code: 'not_found' });
    const balance = Number(row.balance);
    const limit = num(row.credit_limit);
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      external_id: row.external_id,
      phone: row.phone,
      billing_address: row.billing_address,
      currency: row.currency,
      payment_terms_days: row.payment_terms_days,
      credit_limit: limit,
      credit_hold: row.credit_hold,
      metadata: row.metadata ?? {},
      aliases: row.aliases,
      payer_accounts: row.payer_accounts,
      balance,
      overdue_amount: Number(row.overdue_amount),
      credit_available: limit === null ? null : limit - balance,
      credit_status: row.credit_hold ? 'on_hold' : limit !== null && balance > limit ? 'over_limit' : 'ok',
      aging: aging(row),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      ar_summary: {
        total_invoiced: Number(row.total_invoiced),
        total_paid: Number(row.total_paid),
        total_credited: Number(row.total_credited),
        total_written_off: Number(row.total_written_off),
        total_refunded: Number(row.total_refunded),
        balance,
        unapplied_payments: Number(row.unapplied),
        overdue_amount: Number(row.overdue_amount),
        open_invoice_count: row.open_count,
        overdue_invoice_count: row.overdue_count,
        average_days_to_pay: row.average_days === null ? null : Number(row.average_days),
        last_payment: row.last_payment_id ? { id: row.last_payment_id, amount: Number(row.last_payment_amount), payment_date: row.last_payment_date } : null,
      },
    };
  });

  app.get('/api/v1/customers/:id/statement', async (req, reply) => {
    const tenantId = req.headers['x-tenant-id'];
    const id = req.params.id;
    const day = today();
    const from = req.query.from ?? `${day.slice(0, 8)}01`;
    const to = req.query.to ?? day;
    const { rows: [c] } = await q('statement', sql.statement, [tenantId, id, from, to, 1000]);
    if (!c) return reply.code(404).send({ code: 'not_found' });
    // (The service reads statements of more than 1,000 lines again from a cursor; the bench's have fewer.)
    const openingBalance = Number(c.opening_balance);
    let balance = openingBalance;
    const lines = (c.entries ?? []).map(([date, type, reference, description, rawDebit, rawCredit]) => {
      const debit = Number(rawDebit);
      const credit = Number(rawCredit);
      balance += debit - credit;
      return { date, type, reference, description, debit, credit, balance };
    });
    const debits = Number(c.total_debits);
    const credits = Number(c.total_credits);
    return {
      customer: { id: c.id, name: c.name, email: c.email, external_id: c.external_id, billing_address: c.billing_address },
      currency: c.currency,
      from,
      to,
      opening_balance: openingBalance,
      lines,
      total_debits: debits,
      total_credits: credits,
      closing_balance: openingBalance + debits - credits,
      aging: aging(c),
      unapplied_credit: Number(c.unapplied_credit),
      generated_at: new Date().toISOString(),
    };
  });
}

module.exports = [registerInvoices, registerPayments, registerCustomers];
