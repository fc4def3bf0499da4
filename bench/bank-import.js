#!/usr/bin/env node
'use strict';
/**
 * A bank file at bank-file size (issue #15): `npm run build && node bench/bank-import.js
 * [--invoices 1000000] [--entries 100000] [--group 0]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir), seeds it with `npm run seed`'s generator
 * (`--invoices`, one customer per 100 invoices: the bench data set), starts the compiled service
 * (dist/main.js, NODE_ENV=production) as a child process, and writes a camt.053 of `--entries`
 * credit entries against the seeded tenant's open invoices, each naming a different invoice:
 * 60 % with structured remittance (`Strd/RfrdDocInf/Nb` and the amount due as `RmtdAmt`), 25 % with
 * the invoice number in free text (`Ustrd`), 15 % unidentifiable (a payer nobody knows, no number).
 * It posts the file (streamed from disk) to POST /api/v1/bank-statements?format=camt.053, polls the
 * import until it completes, and prints one JSON object: time to the 202 (the file read and staged),
 * time to completed, entries/s, the import's counts, the service's peak RSS (VmRSS sampled every
 * 50 ms, and VmHWM) and the CPU seconds of the service and of PostgreSQL during the import.
 * `--group N` sets BANK_IMPORT_GROUP_SIZE (0: the service's default); `--set-wise 0` records the
 * groups one payment at a time (BANK_IMPORT_SET_WISE=false, the path before ADR 0037); `--streams N`
 * sets BANK_IMPORT_STREAMS (0, the default: the service's own, 2).
 * PostgreSQL's CPU is that of this bench's own cluster (its postmaster, with the backends it
 * reaped, and its live backends), not of every postgres process on the machine.
 * `--pg-stats N` restarts that cluster with pg_stat_statements (track = all: statements run by
 * triggers too) and prints the N statements with the most execution time during the import;
 * `--profile 1` runs the service under `node --cpu-prof` (the profile's path is printed);
 * `--heap-growing-percent N` starts it with V8's `--heap-growing-percent=N` (0: V8's own growth).
 * A measurement, not a test.
 */
const { execFileSync } = require('node:child_process');
const { createReadStream, statSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, stopChild, readProcStatus, cpuSeconds } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');
const { writeCamt } = require('./lib/bank-file');

/** Fields of /proc/<pid>/stat after the command name (state is [0], ppid [1], utime [11] …). */
function procStat(pid) {
  try {
    const stat = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  } catch {
    return null;
  }
}

/** CPU seconds of one PostgreSQL cluster: its postmaster (with the children it reaped) and its live children. */
function clusterCpuSeconds(postmaster) {
  let ticks = 0;
  const own = procStat(postmaster);
  if (own === null) return null;
  ticks += own[11] + own[12] + own[13] + own[14];
  for (const pid of require('node:fs').readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const f = procStat(pid);
    if (f !== null && f[1] === postmaster) ticks += f[11] + f[12] + f[13] + f[14];
  }
  return ticks / 100;
}

const log = (msg) => process.stderr.write(`${msg}\n`);
async function main() {
  const opts = numberOptions({ invoices: 1_000_000, entries: 100_000, group: 0, streams: 0, 'set-wise': 1, 'pg-stats': 0, profile: 0, 'heap-growing-percent': 0 });
  const cleanups = [];
  try {
    let { db, dataDir } = await scratchDatabase('bank-import-bench-', cleanups);
    const seedStarted = Date.now();
    log(`seeding ${opts.invoices} invoices…`);
    const summary = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli/seed.js'), '--invoices', String(opts.invoices), '--customers', String(Math.max(1, Math.round(opts.invoices / 100))), '--json'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      }).toString(),
    );
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const tenant = summary.tenants[0];

    if (opts['pg-stats'] > 0) {
      // Restarted with the extension loaded: statements run by triggers are counted apart (track = all).
      const { startEmbeddedPostgres } = require(join(DIST, 'shared/infrastructure/database/embedded-postgres.js'));
      const port = Number(new URL(db.url).port);
      await db.stop();
      db = await startEmbeddedPostgres(dataDir, port, () => undefined, {
        settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.max=2000'],
      });
      cleanups.push(() => db.stop());
    }
    const { openInvoiceSql } = require(join(DIST, 'shared/infrastructure/query/receivable.sql.js'));
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    await pg.query('ANALYZE');
    const [{ postmaster }] = (await pg.query(`SELECT pg_backend_pid() AS pid`)).rows.map((r) => ({ postmaster: procStat(r.pid)[1] }));
    if (opts['pg-stats'] > 0) await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Distinct open invoices (not disputed), spread over the customers: each entry pays a different one.
    const { rows: invoices } = await pg.query(
      `SELECT i.number, i.amount_due::int AS amount_due, i.currency, c.name AS customer_name
         FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id
        WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.dispute_status IS DISTINCT FROM 'open'
          AND i.amount_due >= 100
        ORDER BY md5(i.id) LIMIT $2`,
      [tenant.tenant_id, opts.entries],
    );
    if (invoices.length === 0) throw new Error('no open invoices: seed more (--invoices)');
    const file = join(dataDir, 'bench.camt053.xml');
    const mix = await writeCamt(file, invoices, opts.entries);
    log(`${invoices.length} open invoices for ${opts.entries} entries (each paid in ${mix.invoices_paid_in_shares_of} share(s))`);
    const fileBytes = statSync(file).size;
    log(`wrote ${opts.entries} entries, ${(fileBytes / 1e6).toFixed(1)} MB`);

    const port = await freePort();
    const logFile = join(dataDir, 'service.log');
    const env = {
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      JWT_SECRET: 'bank-import-bench-secret-0123456789abcdef',
      MALLOC_ARENA_MAX: '2',
      BANK_IMPORT_POLL_MS: '100',
      ...(opts.group > 0 ? { BANK_IMPORT_GROUP_SIZE: String(opts.group) } : {}),
      BANK_IMPORT_SET_WISE: opts['set-wise'] ? 'true' : 'false',
      ...(opts.streams > 0 ? { BANK_IMPORT_STREAMS: String(opts.streams) } : {}),
    };
    const profileDir = join(require('node:os').tmpdir(), `bank-import-profile-${process.pid}`);
    const v8 = opts['heap-growing-percent'] > 0 ? [`--heap-growing-percent=${opts['heap-growing-percent']}`] : [];
    const child = spawnNode([...v8, ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), join(DIST, 'main.js')], env, logFile);
    cleanups.push(() => stopChild(child));
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    const tokenRes = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
    });
    const token = (await tokenRes.json()).access_token;

    let peakRss = readProcStatus(child.pid).rss;
    const idleRss = peakRss;
    // The peak while the file is read and staged (until the 202), and while the credits are recorded.
    let phase = 'staging';
    const phasePeak = { staging: peakRss, processing: 0 };
    const sampler = setInterval(() => {
      const { rss } = readProcStatus(child.pid);
      if (rss > peakRss) peakRss = rss;
      if (rss > phasePeak[phase]) phasePeak[phase] = rss;
    }, 50);
    if (opts['pg-stats'] > 0) await pg.query('SELECT pg_stat_statements_reset()');
    const cpu0 = { service: cpuSeconds(child.pid), pg: clusterCpuSeconds(postmaster) };
    const t0 = Date.now();
    const posted = await fetch(`${base}/bank-statements?format=camt.053`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
      body: createReadStream(file),
      duplex: 'half',
    });
    const accepted = await posted.json();
    if (posted.status !== 202) throw new Error(`POST: ${posted.status} ${JSON.stringify(accepted)}`);
    const stagedMs = Date.now() - t0;
    phase = 'processing';
    log(`202 after ${stagedMs} ms: ${accepted.entries_total} entries staged`);
    let done;
    for (;;) {
      const res = await fetch(`${base}/bank-statements/${accepted.id}`, { headers: { authorization: `Bearer ${token}` } });
      done = await res.json();
      if (done.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const totalMs = Date.now() - t0;
    clearInterval(sampler);
    const hwm = readProcStatus(child.pid).hwm;
    const cpu1 = { service: cpuSeconds(child.pid), pg: clusterCpuSeconds(postmaster) };
    const statements =
      opts['pg-stats'] > 0
        ? (
            await pg.query(
              `SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round((total_exec_time / $2)::numeric, 4) AS ms_per_entry, toplevel,
                      left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
                 FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT $1`,
              [opts['pg-stats'], opts.entries],
            )
          ).rows
        : undefined;
    const processingMs = totalMs - stagedMs;
    const mb = (b) => (b === null ? null : Math.round((b / 1048576) * 10) / 10);
    process.stdout.write(
      `${JSON.stringify(
        {
          invoices: opts.invoices,
          seed_seconds: seedSeconds,
          entries: opts.entries,
          mix,
          file_mb: Math.round((fileBytes / 1e6) * 10) / 10,
          group_size: opts.group || 'default',
          set_wise: Boolean(opts['set-wise']),
          streams: opts.streams || 'default',
          heap_growing_percent: opts['heap-growing-percent'] || 'default',
          seconds_to_202: stagedMs / 1000,
          seconds_to_completed: totalMs / 1000,
          entries_per_second_overall: Math.round(opts.entries / (totalMs / 1000)),
          entries_per_second_after_202: Math.round(opts.entries / (processingMs / 1000)),
          counts: {
            payments_created: done.payments_created,
            payments_existing: done.payments_existing,
            entries_skipped: done.entries_skipped,
            errors: done.errors.length,
            matched: done.matched,
            needs_review: done.needs_review,
            unmatched: done.unmatched,
          },
          service_rss_mb: { idle: mb(idleRss), peak_sampled: mb(peakRss), peak_staging: mb(phasePeak.staging), peak_processing: mb(phasePeak.processing), vm_hwm: mb(hwm) },
          cpu_seconds: { service: cpu1.service - cpu0.service, postgres: Math.round((cpu1.pg - cpu0.pg) * 100) / 100 },
          cpu_ms_per_entry: {
            service: Math.round(((cpu1.service - cpu0.service) * 1000 * 100) / opts.entries) / 100,
            postgres: Math.round(((cpu1.pg - cpu0.pg) * 1000 * 100) / opts.entries) / 100,
          },
          ...(statements ? { postgres_statements_by_time: statements } : {}),
          ...(opts.profile ? { service_profile_dir: profileDir } : {}),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
