#!/usr/bin/env node
'use strict';
/**
 * Statement cost for a customer with a long history: `npm run build && node bench/statement-size.js
 * [--lines 100000]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir) and the compiled service (dist/main.js) as
 * a child process, creates a tenant with the CLI and a customer over HTTP, then seeds `--lines`
 * ledger lines with SQL (100 a day, with the customer's balance moved by their sum). It asks
 * for the whole history as JSON, CSV and PDF (a PDF holds at most 5,000 lines: the 400, then a
 * 5,000-line PDF), one at a time and two at once, and reports for each the time to the last byte,
 * the size, and the service's RSS growth over the idle service (VmRSS sampled every 10 ms from
 * /proc). Plain CommonJS on the compiled dist/, like bench/run.js.
 */
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, stopChild, readProcStatus } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');

const log = (msg) => process.stdout.write(`${msg}\n`);

/** Samples the process's resident set every 10 ms while `work` runs; returns work's result and the peak. */
async function withPeakRss(pid, work) {
  let peak = readProcStatus(pid).rss;
  const timer = setInterval(() => {
    const { rss } = readProcStatus(pid);
    if (rss > peak) peak = rss;
  }, 10);
  try {
    const result = await work();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

async function main() {
  const opts = numberOptions({ lines: 100_000 });
  const cleanups = [];
  try {
    const { db, dataDir } = await scratchDatabase('statement-bench-', cleanups);

    const port = await freePort();
    const logFile = join(dataDir, 'service.log');
    const child = spawnNode([join(DIST, 'main.js')], { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', JWT_SECRET: require('node:crypto').randomBytes(48).toString('base64url'), MALLOC_ARENA_MAX: '2' }, logFile);
    cleanups.push(() => stopChild(child));
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);

    const created = JSON.parse(execFileSync(process.execPath, [join(DIST, 'cli/main.js'), 'tenant', 'create', '--name', 'Statement bench', '--json'], { env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' } }).toString());
    const token = (await (await fetch(`${base}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret }) })).json()).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const customer = await (await fetch(`${base}/customers`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Zakład Łódź — a long history', currency: 'usd' }) })).json();

    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    const t0 = Date.now();
    // The database keeps the balance by a row trigger (one update of the customer row per entry: far too
    // slow for a seed); the seed sets it once, triggers off for its transaction, to the same Σ ledger.
    await pg.query('BEGIN');
    await pg.query('SET LOCAL session_replication_role = replica');
    await pg.query(
      `WITH entries AS (
         INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
         SELECT $1, 'led_bench_' || g, $2, DATE '2020-01-01' + (g / 100)::int,
                CASE WHEN g % 3 = 0 THEN 'payment' ELSE 'invoice' END, CASE WHEN g % 3 = 0 THEN 'payment' ELSE 'invoice' END,
                'src_bench_' || g, 'INV-' || lpad(g::text, 7, '0'),
                CASE WHEN g % 3 = 0 THEN 'Payment received (ach) Ωμέγα' ELSE 'Invoice INV-' || lpad(g::text, 7, '0') || ' Щука' END,
                CASE WHEN g % 3 = 0 THEN 0 ELSE 10000 + g % 1000 END, CASE WHEN g % 3 = 0 THEN 15000 ELSE 0 END, now()
           FROM generate_series(0, $3 - 1) g
         RETURNING debit - credit AS delta)
       UPDATE customers SET balance = balance + (SELECT SUM(delta) FROM entries) WHERE tenant_id = $1 AND id = $2`,
      [created.tenant_id, customer.id, opts.lines],
    );
    await pg.query('COMMIT');
    await pg.query('VACUUM ANALYZE ledger_entries');
    log(`seeded ${opts.lines.toLocaleString('en-US')} ledger lines in ${Date.now() - t0} ms`);

    const lastDay = new Date(Date.UTC(2020, 0, 1 + Math.floor((opts.lines - 1) / 100))).toISOString().slice(0, 10);
    const whole = `/customers/${customer.id}/statement?from=2020-01-01&to=${lastDay}`;
    const longestPdf = `/customers/${customer.id}/statement?from=2020-01-01&to=2020-02-19`; // 50 days: 5,000 lines
    const get = async (path, accept) => {
      const start = performance.now();
      const res = await fetch(`${base}${path}`, { headers: { ...auth, accept } });
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, ms: Math.round(performance.now() - start), bytes: body.length };
    };
    // Warm up (JIT, font, prepared statements), then measure.
    await get(`/customers/${customer.id}/statement?from=2020-01-01&to=2020-01-20`, 'application/pdf');
    await get(`/customers/${customer.id}/statement?from=2020-01-01&to=2020-01-20`, 'application/json');
    await new Promise((r) => setTimeout(r, 500));
    const idle = readProcStatus(child.pid).rss;
    log(`service RSS idle: ${(idle / 1048576).toFixed(0)} MiB`);
    const cases = [
      ['JSON, all lines', [[whole, 'application/json']]],
      ['CSV, all lines', [[whole, 'text/csv']]],
      ['PDF, all lines (refused: 400)', [[whole, 'application/pdf']]],
      ['PDF, 5,000 lines', [[longestPdf, 'application/pdf']]],
      ['two JSON at once', [[whole, 'application/json'], [whole, 'application/json']]],
      ['two CSV at once', [[whole, 'text/csv'], [whole, 'text/csv']]],
      ['JSON and CSV at once', [[whole, 'application/json'], [whole, 'text/csv']]],
      ['two 5,000-line PDFs at once', [[longestPdf, 'application/pdf'], [longestPdf, 'application/pdf']]],
    ];
    log('| statement | status | time to last byte | size | RSS growth (peak − idle) |');
    log('| --- | --- | --- | --- | --- |');
    for (const [name, requests] of cases) {
      const before = readProcStatus(child.pid).rss;
      const { result, peak } = await withPeakRss(child.pid, () => Promise.all(requests.map(([path, accept]) => get(path, accept))));
      log(
        `| ${name} | ${result.map((r) => r.status).join(', ')} | ${result.map((r) => `${(r.ms / 1000).toFixed(2)} s`).join(', ')} | ` +
          `${result.map((r) => `${(r.bytes / 1048576).toFixed(1)} MiB`).join(', ')} | ${((peak - idle) / 1048576).toFixed(0)} MiB (from ${(before / 1048576).toFixed(0)} MiB) |`,
      );
    }
  } finally {
    while (cleanups.length) await cleanups.pop()().catch((e) => log(`cleanup: ${e.message}`));
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
