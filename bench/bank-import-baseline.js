#!/usr/bin/env node
'use strict';
/**
 * The bank-file import against its raw-SQL baseline (issue 15): `npm run build && node
 * bench/bank-import-baseline.js [--invoices 1000000] [--entries 100000] [--group 0] [--baseline-group 200]`.
 *
 * Seeds one embedded PostgreSQL and writes one camt.053 exactly as bench/bank-import.js does
 * (bench/lib/bank-file.js), then copies the seeded database twice (CREATE DATABASE … TEMPLATE) so
 * both importers start from identical data: the compiled service imports the file on one copy
 * (POST /bank-statements, polled to completed; `--group` sets BANK_IMPORT_GROUP_SIZE), the baseline
 * (bench/baseline/bank-import.js, a child process) on the other. Prints one JSON object: each
 * side's time to staged (the 202) and to completed, entries/s, CPU seconds of the importer and of
 * this bench's PostgreSQL cluster (not other clusters on the machine), peak RSS, the import's counts and the rows each wrote, whether those are equal, and
 * the ratios service / baseline. A measurement, not a test.
 */
const { execFileSync, spawn } = require('node:child_process');
const { createReadStream, statSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, stopChild, readProcStatus, cpuSeconds, clusterCpuSeconds, postmasterOf } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');
const { writeCamt } = require('./lib/bank-file');
const { normalizer } = require('./lib/payment-parity');
const { createHash } = require('node:crypto');

const log = (msg) => process.stderr.write(`${msg}\n`);
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
      for (const row of rows) hash.update(JSON.stringify(walk(row)));
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
    await table('ledger_entries', `SELECT p.bank_entry_id AS k, l.* FROM ledger_entries l JOIN payments p ON p.tenant_id = l.tenant_id AND p.id = l.source_id
                                     WHERE l.tenant_id = $1 AND p.bank_entry_id > $2 ORDER BY p.bank_entry_id, l.seq LIMIT 2000`, (r) => r.k);
    await table('outbox', `SELECT lpad(o.seq::text, 20, '0') AS k, o.tenant_id, o.id, o.type, o.aggregate_type, o.aggregate_id, o.data FROM outbox o
                             WHERE o.tenant_id = $1 AND lpad(o.seq::text, 20, '0') > $2 ORDER BY o.seq LIMIT 2000`, (r) => r.k);
    await table('invoices', `SELECT * FROM invoices WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.id);
    await table('customers', `SELECT * FROM customers WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.id);
    await table('bank_statement_entries', `SELECT lpad(position::text, 10, '0') AS k, e.* FROM bank_statement_entries e WHERE tenant_id = $1 AND lpad(position::text, 10, '0') > $2 ORDER BY position LIMIT 2000`, (r) => r.k);
    await table('bank_statements', `SELECT id AS k, s.* FROM bank_statements s WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT 2000`, (r) => r.k);
    return digests;
  } finally {
    await pg.end();
  }
}

/** The service's import, measured as bench/bank-import.js measures it. */
async function serviceImport({ url, tenant, file, group, logFile, postmaster }) {
  const port = await freePort();
  const child = spawnNode([join(DIST, 'main.js')], {
    DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production',
    JWT_SECRET: require('node:crypto').randomBytes(48).toString('base64url'), MALLOC_ARENA_MAX: '2', BANK_IMPORT_POLL_MS: '100',
    ...(group > 0 ? { BANK_IMPORT_GROUP_SIZE: String(group) } : {}),
  }, logFile);
  try {
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    const token = (
      await (await fetch(`${base}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
      })).json()
    ).access_token;
    let peakRss = readProcStatus(child.pid).rss;
    const sampler = setInterval(() => {
      const { rss } = readProcStatus(child.pid);
      if (rss > peakRss) peakRss = rss;
    }, 50);
    const cpu0 = { own: cpuSeconds(child.pid), pg: clusterCpuSeconds(postmaster) };
    const t0 = Date.now();
    const posted = await fetch(`${base}/bank-statements?format=camt.053`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
      body: createReadStream(file),
      duplex: 'half',
    });
    const accepted = await posted.json();
    if (posted.status !== 202) throw new Error(`POST: ${posted.status} ${JSON.stringify(accepted)}`);
    const staged = Date.now() - t0;
    for (;;) {
      const done = await (await fetch(`${base}/bank-statements/${accepted.id}`, { headers: { authorization: `Bearer ${token}` } })).json();
      if (done.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const total = Date.now() - t0;
    clearInterval(sampler);
    const hwm = readProcStatus(child.pid).hwm;
    const cpu1 = { own: cpuSeconds(child.pid), pg: clusterCpuSeconds(postmaster) };
    return { seconds_to_staged: staged / 1000, seconds_to_completed: total / 1000, cpu_seconds: { process: round(cpu1.own - cpu0.own), postgres: round(cpu1.pg - cpu0.pg) }, peak_rss_mb: mb(Math.max(peakRss ?? 0, hwm ?? 0)) };
  } finally {
    await stopChild(child);
  }
}

/** The baseline's import in a child process; its own CPU and peak RSS it reports itself. */
async function baselineImport({ url, tenant, file, group, postmaster }) {
  const pg0 = clusterCpuSeconds(postmaster);
  const child = spawn(process.execPath, [join(__dirname, 'baseline/bank-import.js'), url, tenant.tenant_id, file, String(group)], {
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

async function main() {
  const opts = numberOptions({ invoices: 1_000_000, entries: 100_000, group: 0, 'baseline-group': 200 });
  const cleanups = [];
  try {
    const { db, dataDir } = await scratchDatabase('bank-import-baseline-', cleanups);
    log(`seeding ${opts.invoices} invoices…`);
    const summary = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli/seed.js'), '--invoices', String(opts.invoices), '--customers', String(Math.max(1, Math.round(opts.invoices / 100))), '--json'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      }).toString(),
    );
    const tenant = summary.tenants[0];
    const { openInvoiceSql } = require(join(DIST, 'shared/infrastructure/query/receivable.sql.js'));
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    await pg.query('ANALYZE');
    const postmaster = await postmasterOf(pg);
    // The same file as bench/bank-import.js writes.
    const { rows: invoices } = await pg.query(
      `SELECT i.number, i.amount_due::int AS amount_due, i.currency, c.name AS customer_name
         FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id
        WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.dispute_status IS DISTINCT FROM 'open'
          AND i.amount_due >= 100
        ORDER BY md5(i.id) LIMIT $2`,
      [tenant.tenant_id, opts.entries],
    );
    await pg.end();
    if (invoices.length === 0) throw new Error('no open invoices: seed more (--invoices)');
    const file = join(dataDir, 'bench.camt053.xml');
    const mix = await writeCamt(file, invoices, opts.entries);
    log(`wrote ${opts.entries} entries against ${invoices.length} open invoices, ${(statSync(file).size / 1e6).toFixed(1)} MB`);

    // Two identical copies of the seeded database.
    const urlOf = (name) => Object.assign(new URL(db.url), { pathname: `/${name}` }).toString();
    const admin = new Client({ connectionString: urlOf('template1') });
    await admin.connect();
    for (const name of ['import_service', 'import_baseline']) await admin.query(`CREATE DATABASE ${name} TEMPLATE "${new URL(db.url).pathname.slice(1)}"`);
    await admin.end();

    log('baseline import…');
    const baseline = await baselineImport({ url: urlOf('import_baseline'), tenant, file, group: opts['baseline-group'], postmaster });
    log(`baseline: ${baseline.seconds_to_completed} s; service import…`);
    const service = await serviceImport({ url: urlOf('import_service'), tenant, file, group: opts.group, logFile: join(dataDir, 'service.log'), postmaster });
    const [serviceRows, baselineRows] = [await rowsWritten(urlOf('import_service'), tenant.tenant_id), await rowsWritten(urlOf('import_baseline'), tenant.tenant_id)];
    const [serviceDigests, baselineDigests] = [await rowDigests(urlOf('import_service'), tenant.tenant_id), await rowDigests(urlOf('import_baseline'), tenant.tenant_id)];
    const differing = Object.keys(serviceDigests).filter((k) => serviceDigests[k] !== baselineDigests[k]);
    const equal = JSON.stringify(serviceRows) === JSON.stringify(baselineRows) && differing.length === 0;
    const figures = (r) => ({
      ...r,
      entries_per_second: Math.round(opts.entries / r.seconds_to_completed),
      cpu_ms_per_entry: { process: round((r.cpu_seconds.process * 1000) / opts.entries), postgres: round((r.cpu_seconds.postgres * 1000) / opts.entries) },
    });
    const s = figures(service);
    const b = figures(baseline);
    const ratio = (x, y) => (y > 0 ? round(x / y) : null);
    process.stdout.write(
      `${JSON.stringify(
        {
          invoices: opts.invoices,
          entries: opts.entries,
          mix,
          group_size: { service: opts.group || 'default', baseline: opts['baseline-group'] },
          service: s,
          baseline: b,
          // service / baseline: above 1, the service takes that many times the baseline's time or CPU
          ratio_service_to_baseline: {
            seconds_to_completed: ratio(s.seconds_to_completed, b.seconds_to_completed),
            cpu_process: ratio(s.cpu_seconds.process, b.cpu_seconds.process),
            cpu_postgres: ratio(s.cpu_seconds.postgres, b.cpu_seconds.postgres),
            cpu_total: ratio(s.cpu_seconds.process + s.cpu_seconds.postgres, b.cpu_seconds.process + b.cpu_seconds.postgres),
          },
          same_rows: equal,
          rows: equal ? { both: serviceRows } : { service: serviceRows, baseline: baselineRows },
          row_digests: differing.length === 0 ? { both: serviceDigests } : { differing, service: serviceDigests, baseline: baselineDigests },
        },
        null,
        2,
      )}\n`,
    );
    if (!equal) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
