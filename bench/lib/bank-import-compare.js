'use strict';
/**
 * The service's bank import against the raw-SQL baseline's (bench/baseline/bank-import.js) on two
 * identical copies of one seeded database: both measured, and what each wrote counted and hashed
 * row by row (bench/bank-import-baseline.js prints it; test/e2e/bench checks the rows).
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { createHash, randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { clusterCpuSeconds, postmasterOf } = require('./processes');
const { serviceImport: measuredImport } = require('./service-import');
const { normalizer } = require('./payment-parity');
const { walDelta } = require('./wal-stats');

const mb = (b) => (b === null ? null : Math.round((b / 1048576) * 10) / 10);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** What an import wrote, counted in its database (both start from the same copy). */
async function rowsWritten(url, tenantId) {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const one = async (text) => (await pg.query(text, [tenantId])).rows;
    const [statement] = await one(`SELECT entries_total, entries_processed, payments_created, payments_existing, entries_skipped, matched, needs_review, unmatched, jsonb_array_length(errors) AS errors
                                     FROM bank_statements WHERE tenant_id = $1`);
    const payments = await one(`SELECT match_status, match_rule, customer_source, status, count(*)::int AS n, sum(amount_applied)::text AS applied
                                  FROM payments WHERE tenant_id = $1 AND bank_entry_id IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
    const [applications] = await one(`SELECT count(*)::int AS n, coalesce(sum(a.amount), 0)::text AS amount FROM payment_applications a
                                        JOIN payments p ON p.tenant_id = a.tenant_id AND p.id = a.payment_id WHERE a.tenant_id = $1 AND p.bank_entry_id IS NOT NULL`);
    const invoices = await one(`SELECT status, count(*)::int AS n, sum(amount_paid)::text AS paid, sum(version)::int AS versions FROM invoices WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`);
    const [ledger] = await one(`SELECT count(*)::int AS n, sum(credit)::text AS credit FROM ledger_entries WHERE tenant_id = $1 AND source_type = 'payment'
                                   AND source_id IN (SELECT id FROM payments WHERE tenant_id = $1 AND bank_entry_id IS NOT NULL)`);
    const outbox = await one(`SELECT type, count(*)::int AS n FROM outbox WHERE tenant_id = $1 GROUP BY 1 ORDER BY 1`);
    const [customers] = await one(`SELECT sum(balance)::text AS balance, sum(total_paid)::text AS total_paid, count(last_payment_id)::int AS with_last_payment FROM customers WHERE tenant_id = $1`);
    const [entries] = await one(`SELECT count(*) FILTER (WHERE status = 'created')::int AS created, count(*)::int AS n FROM bank_statement_entries WHERE tenant_id = $1`);
    return { statement, payments, applications, invoices, ledger, outbox, customers, entries };
  } finally {
    await pg.end();
  }
}

/**
 * Every row the import wrote or changed, table by table, normalised (generated ids by order of
 * appearance, instants as a marker) and hashed, read in keyset batches so memory stays flat. Rows
 * are ordered by what both imports share: the bank entry, the invoice, the outbox sequence.
 */
async function rowDigests(url, tenantId) {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const walk = normalizer();
  const digests = {};
  const table = async (name, text, keyOf) => {
    const hash = createHash('sha1');
    let last = '';
    let n = 0;
    for (;;) {
      const { rows } = await pg.query(text, [tenantId, last]);
      for (const { k, ...row } of rows) hash.update(JSON.stringify(walk(row)));
      n += rows.length;
      if (rows.length < 2000) break;
      last = keyOf(rows[rows.length - 1]);
    }
    digests[name] = `${n} rows ${hash.digest('hex').slice(0, 12)}`;
  };
  try {
    const bank = `SELECT p.bank_entry_id AS k, p.* FROM payments p WHERE p.tenant_id = $1 AND p.bank_entry_id IS NOT NULL AND p.bank_entry_id > $2 ORDER BY p.bank_entry_id LIMIT 2000`;
    await table('payments', bank, (r) => r.k);
    await table('payment_applications', `SELECT p.bank_entry_id AS k, a.* FROM payment_applications a JOIN payments p ON p.tenant_id = a.tenant_id AND p.id = a.payment_id
                                           WHERE a.tenant_id = $1 AND p.bank_entry_id > $2 ORDER BY p.bank_entry_id, a.invoice_id LIMIT 2000`, (r) => r.k);
    // Not by seq across entries: with several import streams the service's transactions interleave.
    await table('ledger_entries', `SELECT p.bank_entry_id AS k, l.tenant_id, l.id, l.customer_id, l.entry_date, l.type, l.source_type, l.source_id, l.reference,
                                          l.description, l.debit, l.credit, l.created_at
                                     FROM ledger_entries l JOIN payments p ON p.tenant_id = l.tenant_id AND p.id = l.source_id
                                     WHERE l.tenant_id = $1 AND p.bank_entry_id > $2 ORDER BY p.bank_entry_id, l.seq LIMIT 2000`, (r) => r.k);
    // Each payment's events by its bank entry, each invoice's by the invoice, each in the order written.
    await table('outbox', `SELECT * FROM (
                             SELECT COALESCE(p.bank_entry_id, o.aggregate_id) || ':' || lpad(o.seq::text, 20, '0') AS k,
                                    o.tenant_id, o.id, o.type, o.aggregate_type, o.aggregate_id, o.data
                               FROM outbox o LEFT JOIN payments p ON p.tenant_id = o.tenant_id AND p.id = o.aggregate_id
                              WHERE o.tenant_id = $1) x
                            WHERE x.k > $2 ORDER BY x.k LIMIT 2000`, (r) => r.k);
    await table('invoices', `SELECT * FROM invoices WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.id);
    await table('customers', `SELECT * FROM customers WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.id);
    await table('bank_statement_entries', `SELECT lpad(position::text, 10, '0') AS k, e.* FROM bank_statement_entries e WHERE tenant_id = $1 AND lpad(position::text, 10, '0') > $2 ORDER BY position LIMIT 2000`, (r) => r.k);
    await table('bank_statements', `SELECT id AS k, s.* FROM bank_statements s WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.k);
    return digests;
  } finally {
    await pg.end();
  }
}

/** The service's import, measured as bench/bank-import.js measures it (bench/lib/service-import.js). */
async function serviceImport({ url, tenant, file, group, streams, logFile, postmaster }) {
  const { done, stagedMs, totalMs, rss, cpuSeconds, wal } = await measuredImport({
    url, tenant, file, postmaster, logFile,
    env: { ...(group > 0 ? { BANK_IMPORT_GROUP_SIZE: String(group) } : {}), BANK_IMPORT_STREAMS: String(streams) },
  });
  return {
    seconds_to_staged: stagedMs / 1000,
    seconds_to_completed: totalMs / 1000,
    cpu_seconds: { process: round(cpuSeconds.service), postgres: round(cpuSeconds.postgres) },
    peak_rss_mb: mb(Math.max(rss.peak ?? 0, rss.hwm ?? 0)),
    wal_per_entry: walDelta(wal.before, wal.after, done.entries_total),
  };
}

/** The baseline's import in a child process; its own CPU and peak RSS it reports itself. */
async function baselineImport({ url, tenant, file, group, postmaster }) {
  const pg0 = clusterCpuSeconds(postmaster);
  const child = spawn(process.execPath, [join(__dirname, '../baseline/bank-import.js'), url, tenant.tenant_id, file, String(group)], {
    env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the baseline import failed (exit code ${code})`);
  const r = JSON.parse(out);
  return { seconds_to_staged: r.seconds_to_staged, seconds_to_completed: r.seconds_to_completed, cpu_seconds: { process: round(r.cpu_seconds), postgres: round(clusterCpuSeconds(postmaster) - pg0) }, peak_rss_mb: r.max_rss_mb };
}

/**
 * Copies the seeded database at `url` twice (nothing may be connected to it), imports `file` on one
 * copy through the compiled service and on the other through the baseline, and answers both
 * measurements, the rows each wrote (counts and per-table digests) and whether they are equal.
 * The copies are dropped at the end.
 */
async function compareImports({ url, tenant, file, group = 0, streams = 1, baselineGroup = 200, workDir, log = () => undefined }) {
  const urlOf = (name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const suffix = randomBytes(4).toString('hex');
  const names = { service: `import_service_${suffix}`, baseline: `import_baseline_${suffix}` };
  const admin = new Client({ connectionString: urlOf('template1') });
  await admin.connect();
  try {
    for (const name of Object.values(names)) await admin.query(`CREATE DATABASE ${name} TEMPLATE "${new URL(url).pathname.slice(1)}"`);
    const postmaster = await postmasterOf(admin);
    log('baseline import…');
    const baseline = await baselineImport({ url: urlOf(names.baseline), tenant, file, group: baselineGroup, postmaster });
    log(`baseline: ${baseline.seconds_to_completed} s; service import…`);
    const service = await serviceImport({ url: urlOf(names.service), tenant, file, group, streams, logFile: join(workDir, 'import-service.log'), postmaster });
    const [serviceRows, baselineRows] = [await rowsWritten(urlOf(names.service), tenant.tenant_id), await rowsWritten(urlOf(names.baseline), tenant.tenant_id)];
    const [serviceDigests, baselineDigests] = [await rowDigests(urlOf(names.service), tenant.tenant_id), await rowDigests(urlOf(names.baseline), tenant.tenant_id)];
    const differing = Object.keys(serviceDigests).filter((k) => serviceDigests[k] !== baselineDigests[k]);
    const equal = JSON.stringify(serviceRows) === JSON.stringify(baselineRows) && differing.length === 0;
    return { service, baseline, serviceRows, baselineRows, serviceDigests, baselineDigests, differing, equal };
  } finally {
    for (const name of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

module.exports = { compareImports, rowsWritten, rowDigests };
