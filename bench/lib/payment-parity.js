'use strict';
/**
 * Does the baseline's POST /payments do the service's work? On a small seeded scratch database,
 * copied twice (CREATE DATABASE … TEMPLATE), the service runs on one copy and the baseline on the
 * other; the same payments are posted to both, in the same order, and what each wrote is compared:
 * the 201 answers, and the rows of payments, payment_applications, invoices, invoice_write_offs,
 * ledger_entries, outbox and customers that the payments touched. Generated ids (pay_, app_, led_,
 * evt_, wo_) are replaced by their order of appearance and times by a marker; everything else must be
 * equal. The service runs with its workers off, so the outbox rows stay as written.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { DIST, scratchDatabase } = require('./scratch');
const { freePort, spawnNode, waitForHttp, stopChild } = require('./processes');

const GENERATED_ID = /^(pay|app|led|evt|wo|wof|bst)_[0-9a-z]{26}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** Replaces generated ids by `<prefix>#n` (n: order of first appearance) and instants by `<time>`. */
function normalizer() {
  const ids = new Map();
  const walk = (v) => {
    if (v instanceof Date) return '<time>';
    if (typeof v === 'string') {
      if (GENERATED_ID.test(v)) {
        if (!ids.has(v)) ids.set(v, `${v.split('_')[0]}#${ids.size + 1}`);
        return ids.get(v);
      }
      if (ISO_TIME.test(v)) return '<time>';
      if (v.startsWith('{') || v.startsWith('[')) {
        try {
          return walk(JSON.parse(v));
        } catch {
          return v;
        }
      }
      return v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk;
}

/** The rows a payment wrote or changed, in a stable order. */
async function rowsOf(pg, tenantId, paymentId) {
  const q = async (text, params) => (await pg.query(text, params)).rows;
  const [payment] = await q(`SELECT * FROM payments WHERE tenant_id = $1 AND id = $2`, [tenantId, paymentId]);
  const applications = await q(`SELECT * FROM payment_applications WHERE tenant_id = $1 AND payment_id = $2 ORDER BY applied_at, id`, [tenantId, paymentId]);
  const invoiceIds = applications.map((a) => a.invoice_id);
  const invoices = await q(`SELECT * FROM invoices WHERE tenant_id = $1 AND id = ANY($2::text[]) ORDER BY id`, [tenantId, invoiceIds]);
  const writeOffs = await q(`SELECT * FROM invoice_write_offs WHERE tenant_id = $1 AND invoice_id = ANY($2::text[]) AND created_at > now() - interval '1 hour' ORDER BY created_at, id`, [tenantId, invoiceIds]);
  const ledger = await q(
    `SELECT * FROM ledger_entries WHERE tenant_id = $1 AND (source_id = $2 OR (source_id = ANY($3::text[]) AND created_at > now() - interval '1 hour')) ORDER BY seq`,
    [tenantId, paymentId, invoiceIds],
  );
  const outbox = (await q(`SELECT * FROM outbox WHERE tenant_id = $1 AND (aggregate_id = $2 OR aggregate_id = ANY($3::text[])) AND created_at > now() - interval '1 hour' ORDER BY seq`, [tenantId, paymentId, invoiceIds])).map(({ seq, ...row }) => row);
  const customers = payment?.customer_id ? await q(`SELECT * FROM customers WHERE tenant_id = $1 AND id = $2`, [tenantId, payment.customer_id]) : [];
  for (const l of ledger) delete l.seq;
  return { payment, applications, invoices, writeOffs, ledger, outbox, customers };
}

/** The first place two JSON texts differ, with some context. */
function difference(a, b) {
  if (a === b) return null;
  let at = 0;
  while (a[at] === b[at]) at++;
  return `service …${a.slice(Math.max(0, at - 80), at + 80)}… baseline …${b.slice(Math.max(0, at - 80), at + 80)}…`;
}

/** Payments the bench and the bank import make, built from the seeded data. */
async function parityCases(pg, tenantId) {
  const { openInvoiceSql } = require(join(DIST, 'shared/infrastructure/query/receivable.sql.js'));
  const { rows } = await pg.query(
    `SELECT i.id, i.number, i.customer_id, i.currency, i.amount_due::int AS amount_due, c.name AS customer_name
       FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id
      WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.dispute_status IS DISTINCT FROM 'open' AND i.amount_due > 100000
      ORDER BY md5(i.id) LIMIT 6`,
    [tenantId],
  );
  if (rows.length < 6) throw new Error('payment parity: the seed has too few open invoices');
  const [a, b, c, d, e, f] = rows;
  return [
    // the bench's scenario: rule 2, a reference naming an open invoice of the given customer
    { name: 'reference (bench scenario)', body: { customer_id: a.customer_id, amount: 100, method: 'ach', reference: `Payment for ${a.number}` } },
    // the bank import's structured remittance: no customer, paid in full (invoice.paid)
    {
      name: 'remittance, customer identified, paid in full',
      body: { amount: b.amount_due, currency: b.currency, payment_date: '2026-11-05', method: 'other', reference: null, remittance: [{ invoice_number: b.number, amount: b.amount_due }], payer: { name: b.customer_name, account: null, bank_id: null }, bank_entry_id: 'PARITY-1', metadata: { bank_statement_id: 'bst_parity' } },
    },
    // the bank import's free text: the invoice number in the reference, no customer
    { name: 'free-text reference, no customer', body: { amount: 5_000, currency: c.currency, method: 'other', reference: `Payment of invoice ${c.number} thank you`, payer: { name: c.customer_name } } },
    // the bank import's unidentifiable credit
    { name: 'unidentifiable', body: { amount: 12_345, currency: d.currency, method: 'other', reference: 'Transfer 17', payer: { name: 'Private payer 17', account: 'NL10BANK0000000017' } } },
    // rule 3 (or review, when several invoices owe that much)
    { name: 'exact amount', body: { customer_id: e.customer_id, amount: e.amount_due, method: 'check' } },
    // rule 1 with a customer: two lines, one over what is due
    { name: 'remittance of two invoices', body: { customer_id: f.customer_id, amount: 300, method: 'wire', remittance: [{ invoice_number: f.number, amount: 200 }, { invoice_id: a.id }] } },
  ];
}

/**
 * Seeds a small scratch database and runs the comparison on it (comparePaymentWrites). Resolves
 * with the list of differences (empty: the baseline wrote what the service wrote) and the outcomes.
 */
async function checkPaymentParity({ log = () => undefined, invoices = 3000 } = {}) {
  const cleanups = [];
  try {
    const { db, dataDir } = await scratchDatabase('payment-parity-', cleanups);
    const summary = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli/seed.js'), '--invoices', String(invoices), '--customers', String(Math.max(1, invoices / 100)), '--json'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'ignore'],
      }).toString(),
    );
    return await comparePaymentWrites({ url: db.url, tenant: summary.tenants[0], workDir: dataDir, log });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/**
 * Copies the seeded database at `url` twice (nothing may be connected to it), runs the compiled
 * service on one copy and the baseline on the other, posts the same payments to both and compares
 * answers and rows; drops the copies. Logs go to `workDir`.
 */
async function comparePaymentWrites({ url, tenant, workDir, log = () => undefined }) {
  const cleanups = [];
  try {
    const source = new URL(url).pathname.slice(1);
    const suffix = require('node:crypto').randomBytes(4).toString('hex');
    const names = { service: `parity_service_${suffix}`, baseline: `parity_baseline_${suffix}` };
    const urlOf = (name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
    const admin = new Client({ connectionString: urlOf('template1') });
    await admin.connect();
    cleanups.push(() => admin.end());
    for (const name of Object.values(names)) {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE "${source}"`);
      cleanups.push(() => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    const pgOf = async (name) => {
      const c = new Client({ connectionString: urlOf(name) });
      await c.connect();
      cleanups.push(() => c.end());
      return c;
    };
    const [pgService, pgBaseline] = [await pgOf(names.service), await pgOf(names.baseline)];
    const cases = await parityCases(pgService, tenant.tenant_id);

    const [servicePort, baselinePort] = [await freePort(), await freePort()];
    // Both servers record their statements, so the order of what they run can be compared too.
    const traces = { service: join(workDir, `parity-service-${suffix}.sql`), baseline: join(workDir, `parity-baseline-${suffix}.sql`) };
    const service = spawnNode(['-r', join(__dirname, 'sql-trace.js'), join(DIST, 'main.js')], {
      SQL_TRACE_FILE: traces.service,
      DATABASE_URL: urlOf(names.service), PORT: String(servicePort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production',
      JWT_SECRET: require('node:crypto').randomBytes(48).toString('base64url'), WORKERS_ENABLED: 'false',
    }, join(workDir, 'parity-service.log'));
    cleanups.push(() => stopChild(service));
    const baseline = spawnNode(['-r', join(__dirname, 'sql-trace.js'), join(__dirname, '../baseline/server.js')], { SQL_TRACE_FILE: traces.baseline, DATABASE_URL: urlOf(names.baseline), PORT: String(baselinePort), POOL_SIZE: '2' }, join(workDir, 'parity-baseline.log'));
    cleanups.push(() => stopChild(baseline));
    await Promise.all([
      waitForHttp(`http://127.0.0.1:${servicePort}/health`, service, 60_000, join(workDir, 'parity-service.log')),
      waitForHttp(`http://127.0.0.1:${baselinePort}/health`, baseline, 30_000, join(workDir, 'parity-baseline.log')),
    ]);
    const token = (
      await (
        await fetch(`http://127.0.0.1:${servicePort}/api/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
        })
      ).json()
    ).access_token;
    const targets = [
      { name: 'service', url: `http://127.0.0.1:${servicePort}`, headers: { authorization: `Bearer ${token}` }, pg: pgService },
      { name: 'baseline', url: `http://127.0.0.1:${baselinePort}`, headers: { 'x-tenant-id': tenant.tenant_id }, pg: pgBaseline },
    ];

    const problems = [];
    const outcomes = [];
    const statementDifferences = [];
    for (const c of cases) {
      const seen = [];
      for (const t of targets) {
        writeFileSync(traces[t.name], '');
        const res = await fetch(`${t.url}/api/v1/payments`, { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
        const body = await res.json();
        const rows = res.status === 201 ? await rowsOf(t.pg, tenant.tenant_id, body.id) : null;
        const walk = normalizer();
        seen.push({ status: res.status, body, text: JSON.stringify(walk({ status: res.status, body, rows })), statements: statementsOf(traces[t.name]) });
      }
      const [s, b] = seen;
      const order = difference(JSON.stringify(s.statements), JSON.stringify(b.statements));
      if (order) statementDifferences.push(`${c.name}: ${order}`);
      const diff = difference(s.text, b.text);
      outcomes.push(`${c.name}: ${s.status} ${s.body.match ? `${s.body.match.status}${s.body.match.rule ? ` by ${s.body.match.rule}` : ''}` : JSON.stringify(s.body).slice(0, 120)}${diff ? ' — DIFFERS' : ', same rows'}`);
      if (diff) problems.push(`${c.name}: ${diff}`);
    }
    for (const line of outcomes) log(`  ${line}`);
    return { problems, outcomes, statementDifferences };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/**
 * The statements a server ran for one request, whitespace collapsed, without what is not the
 * payment's work: the service's API-client lookup and rate-limit counter (which the baseline does not do)
 * and the tenant-settings read (each server caches the settings and reads them once).
 */
function statementsOf(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).replace(/\s+/g, ' ').trim())
    .filter((text) => !/FROM "api_clients"|"rate_limits"|FROM tenants t LEFT JOIN tenant_settings|^LISTEN /.test(text));
}

module.exports = { checkPaymentParity, comparePaymentWrites, normalizer, rowsOf };
