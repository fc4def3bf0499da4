#!/usr/bin/env node
'use strict';
/**
 * PostgreSQL CPU per auto-matched payment (issue #15): `npm run build && nice -n 10 node
 * bench/payments-pg-cpu.js [--invoices 100000] [--payments 1000] [--warmup 200] [--idempotency 1]
 * [--dist path/to/dist]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir) with pg_stat_statements (track = all, so
 * the statements run inside triggers and functions are counted too), seeds it with `npm run
 * seed`'s generator (`--invoices`, one customer per 100 invoices: the bench data set), starts the
 * compiled service (`--dist`, default dist/) and records `--payments` payments one after the
 * other, as the bench's create-payment scenario does: 1.00 for a customer, naming one of its
 * open invoices in the reference, so rule 2 (reference) applies it; each with an
 * Idempotency-Key unless `--idempotency 0`. After `--warmup` such payments (caches, plans), it
 * resets the counters and measures.
 *
 * Prints one JSON object: CPU-ms per payment of this cluster's PostgreSQL processes (read from
 * /proc: the postmaster's descendants, live and reaped; other clusters on the machine are not
 * counted), split into the backends serving the service and the rest (checkpointer, WAL writer,
 * autovacuum…), and pg_stat_statements per payment: calls and total_exec_time of the top
 * statements (execution and planning time; nested statements' times are part of their caller's);
 * and the WAL per payment (records, full-page images, bytes; the checkpoints during the run, blocks
 * written by process type: bench/lib/wal-stats.js; read once the service has stopped, its backends'
 * counts flushed as they exit). The run starts right after a CHECKPOINT: the full-page images are
 * those of the pages a payment is first to change after one. `--pg-settings 'name=value,…'`: extra
 * server settings for the run (e.g. wal_compression=off, to compare settings run by run).
 * A measurement, not a test: run it niced; compare figures of runs made back to back.
 */
const { execFileSync } = require('node:child_process');
const { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { Client } = require('pg');
const { freePort, spawnNode, waitForHttp, stopChild } = require('./lib/processes');
const { walSnapshot, walDelta } = require('./lib/wal-stats');

const log = (msg) => process.stderr.write(`${msg}\n`);

function options(argv) {
  const opts = { invoices: 100_000, payments: 1000, warmup: 200, idempotency: 1, dist: join(__dirname, '../dist'), top: 25, keep: 0, explain: 0, statements: 1, 'pg-settings': '' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts)) throw new Error(`unknown option ${argv[i]}`);
    opts[key] = key === 'dist' ? resolve(argv[i + 1]) : key === 'pg-settings' ? argv[i + 1] : Number(argv[i + 1]);
  }
  return opts;
}

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
  } catch {
    return null;
  }
}

/**
 * CPU seconds of one PostgreSQL cluster: the postmaster's own and its reaped children's
 * (closed backends, finished autovacuum workers), plus its live children's, split into client
 * backends (their command line names the database) and the rest.
 */
function clusterCpu(postmasterPid) {
  const pm = stat(postmasterPid);
  let backends = 0;
  let system = pm.stime + pm.cstime;
  let other = pm.utime + pm.stime + pm.cutime + pm.cstime;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = stat(d);
    if (!s || s.ppid !== postmasterPid) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const ticks = s.utime + s.stime;
    system += s.stime;
    if (/postgres: \S+ receivables /.test(cmd)) backends += ticks;
    else other += ticks;
  }
  return { backends: backends / 100, other: other / 100, system: system / 100 };
}

async function main() {
  const opts = options(process.argv.slice(2));
  const DIST = opts.dist;
  const cleanups = [];
  try {
    const { startEmbeddedPostgres } = require(join(DIST, 'shared/infrastructure/database/embedded-postgres.js'));
    const { migrate } = require(join(DIST, 'bootstrap.js'));
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-pg-cpu-'));
    chmodSync(dataDir, 0o755);
    if (!opts.keep) cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const db = await startEmbeddedPostgres(dataDir, await freePort(), () => undefined, {
      // --statements 0: without pg_stat_statements, whose own bookkeeping (every nested statement
      // and its planning tracked) is part of the CPU measured otherwise.
      settings: [
        ...(opts.statements
          ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.track_planning=on', 'pg_stat_statements.max=5000']
          : []),
        // --explain R: the plans (with buffers) of a share R of the statements, in the kept directory's postgresql.log.
        ...(opts.explain > 0
          ? ['session_preload_libraries=auto_explain', 'auto_explain.log_min_duration=0', 'auto_explain.log_analyze=on', 'auto_explain.log_buffers=on', `auto_explain.sample_rate=${opts.explain}`]
          : []),
        ...opts['pg-settings'].split(',').map((x) => x.trim()).filter((x) => x !== ''),
      ],
    });
    // --keep 1: the database stays up for a look afterwards (stop it with pg_ctl, remove the directory).
    if (opts.keep) log(`kept: ${db.url} in ${dataDir}`);
    else cleanups.push(() => db.stop());
    await migrate(db.url, () => undefined);
    const postmasterPid = Number(readFileSync(join(db.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

    log(`seeding ${opts.invoices} invoices…`);
    const summary = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli/seed.js'), '--invoices', String(opts.invoices), '--customers', String(Math.max(1, Math.round(opts.invoices / 100))), '--json'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', NODE_ENV: '' },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      }).toString(),
    );
    const tenant = summary.tenants[0];
    const { openInvoiceSql } = require(join(DIST, 'shared/infrastructure/query/receivable.sql.js'));
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    if (opts.statements) await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pg.query('VACUUM ANALYZE');
    const total = opts.warmup + opts.payments;
    // As the bench's create-payment scenario: open invoices with more than 1,000.00 due, outside the largest customer.
    const { rows: payable } = await pg.query(
      `SELECT i.customer_id, i.number FROM invoices i
        WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.amount_due > 100000 AND i.dispute_status IS DISTINCT FROM 'open'
        ORDER BY md5(i.id) LIMIT $2`,
      [tenant.tenant_id, total],
    );
    if (payable.length < total) log(`only ${payable.length} payable invoices: some are paid more than once`);

    const port = await freePort();
    const logFile = join(dataDir, 'service.log');
    const child = spawnNode(
      [join(DIST, 'main.js')],
      {
        DATABASE_URL: db.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        JWT_SECRET: 'payments-pg-cpu-bench-secret-0123456789abcdef',
        MALLOC_ARENA_MAX: '2',
        RATE_LIMIT_REQUESTS: '1000000000',
      },
      logFile,
    );
    cleanups.push(() => stopChild(child));
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    const tokenRes = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
    });
    const token = (await tokenRes.json()).access_token;
    const run = Date.now().toString(36);
    const pay = async (i) => {
      const inv = payable[i % payable.length];
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      if (opts.idempotency) headers['idempotency-key'] = `bench-${run}-${i}`;
      const res = await fetch(`${base}/payments`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ customer_id: inv.customer_id, amount: 100, method: 'ach', reference: `Payment for ${inv.number}` }),
      });
      const body = await res.json();
      if (res.status !== 201) throw new Error(`POST /payments: ${res.status} ${JSON.stringify(body)}`);
      if (body.match?.rule !== 'reference') throw new Error(`payment was not matched by reference: ${JSON.stringify(body.match)}`);
    };
    log(`warming up with ${opts.warmup} payments…`);
    for (let i = 0; i < opts.warmup; i++) await pay(i);
    // Statistics of the tables the warm-up filled from empty (idempotency keys, outbox): without
    // them a plan cached while a table was nearly empty can scan it whole until autovacuum's next
    // round (up to a minute), in one run and not the next.
    await pg.query('ANALYZE idempotency_keys, outbox, payments, payment_applications, ledger_entries');
    await pg.query('CHECKPOINT');
    if (opts.statements) await pg.query('SELECT pg_stat_statements_reset()');
    log(`measuring ${opts.payments} payments…`);
    const wal0 = await walSnapshot(pg);
    const cpu0 = clusterCpu(postmasterPid);
    const t0 = Date.now();
    for (let i = opts.warmup; i < total; i++) await pay(i);
    const seconds = (Date.now() - t0) / 1000;
    const cpu1 = clusterCpu(postmasterPid);
    // The service's backends report their WAL counts as they exit (else up to 10 s later).
    await stopChild(child);
    const wal1 = await walSnapshot(pg);
    const { rows: statements } = !opts.statements ? { rows: [] } : await pg.query(
      `SELECT calls, total_exec_time, total_plan_time, shared_blks_hit + shared_blks_read AS blocks, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
         FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%pg_stat_statements%'
        ORDER BY total_exec_time DESC`,
    );
    const n = opts.payments;
    const r2 = (x) => Math.round(x * 100) / 100;
    const r4 = (x) => Math.round(x * 10000) / 10000;
    const topLevel = statements.filter((s) => s.toplevel);
    process.stdout.write(
      `${JSON.stringify(
        {
          dist: DIST,
          invoices: opts.invoices,
          payments: n,
          warmup: opts.warmup,
          idempotency_key: !!opts.idempotency,
          wall_seconds: seconds,
          postgres_cpu_ms_per_payment: {
            total: r2(((cpu1.backends + cpu1.other - cpu0.backends - cpu0.other) * 1000) / n),
            backends: r2(((cpu1.backends - cpu0.backends) * 1000) / n),
            other_processes: r2(((cpu1.other - cpu0.other) * 1000) / n),
            of_which_kernel: r2(((cpu1.system - cpu0.system) * 1000) / n),
          },
          wal_per_payment: walDelta(wal0, wal1, n),
          statements_per_payment: {
            top_level_calls: r2(topLevel.reduce((a, s) => a + Number(s.calls), 0) / n),
            top_level_exec_ms: r4(topLevel.reduce((a, s) => a + s.total_exec_time, 0) / n),
            top_level_plan_ms: r4(topLevel.reduce((a, s) => a + s.total_plan_time, 0) / n),
          },
          top_statements: statements.slice(0, opts.top).map((s) => ({
            ms_per_payment: r4(s.total_exec_time / n),
            plan_ms_per_payment: r4(s.total_plan_time / n),
            calls_per_payment: r2(Number(s.calls) / n),
            blocks_per_call: r2(Number(s.blocks) / Math.max(1, Number(s.calls))),
            top: s.toplevel,
            query: s.query,
          })),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().then(
  // --keep: the database's lease connection would hold the process open.
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
