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
 * sets BANK_IMPORT_STREAMS (0, the default: the service's own, 2 to 4 per window as the host's idle
 * CPU allows, ADR 0056).
 * PostgreSQL's CPU is that of this bench's own cluster (its postmaster, with the backends it
 * reaped, and its live backends), not of every postgres process on the machine.
 * `--pg-stats N` restarts that cluster with pg_stat_statements (track = all: statements run by
 * triggers too) and prints the N statements with the most execution time during the import (with
 * their planning time when run with `--pg-settings pg_stat_statements.track_planning=on`);
 * `--profile 1` runs the service under `node --cpu-prof` (the profile's path is printed);
 * `--heap-growing-percent N` starts it with V8's `--heap-growing-percent=N` (0: V8's own growth).
 * `--dist a,b` imports the same file with each of these builds (compiled dist directories; default
 * this checkout's dist/), `--rounds N` times each, alternating (a b a b …), each on its own copy of the
 * seeded database (CREATE DATABASE … TEMPLATE): builds compared on one seed and one file, back to back.
 * With one build and one round the import runs on the seeded database itself.
 * `--pg-settings 'a;b'` compares server settings the same way: before each of a variant's imports
 * (`name=value,…`, empty for none) the cluster is restarted with them (after the embedded server's
 * own, which they override), alternating with the builds; an item `sql:STATEMENT` (no comma in it)
 * is run on the import's copy of the database instead.
 * Each import starts right after a CHECKPOINT (the copy of the database is itself written to the WAL),
 * and the output has the WAL it wrote per entry (records, full-page images, bytes), the checkpoints
 * during it, and the blocks written per entry by process type (bench/lib/wal-stats.js); `--wal-records N`
 * adds the N WAL record types with the most bytes (pg_walinspect: records, their bytes and their
 * full-page images' bytes per entry). `--table-stats 1` adds, per table written during the import,
 * the rows inserted, updated (HOT, and to a new page) and deleted per entry (pg_stat_user_tables).
 * A measurement, not a test.
 */
const { execFileSync } = require('node:child_process');
const { readdirSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { postmasterOf } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');
const { writeCamt, openInvoicesForFile } = require('./lib/bank-file');
const { serviceImport } = require('./lib/service-import');
const { walDelta, walRecordTypes } = require('./lib/wal-stats');

const log = (msg) => process.stderr.write(`${msg}\n`);
const mb = (b) => (b === null || b === undefined ? null : Math.round((b / 1048576) * 10) / 10);

/**
 * The builds share one seed, migrated by this checkout's dist/. A build migrates its copy at start,
 * so it may have more migrations than this checkout; one without some of them would run on a schema
 * (triggers, indexes, tables) that is not its own and measure something else: run the bench from
 * the older build's checkout instead.
 */
function sameSchema(dists) {
  const migrations = (dist) => new Set(readdirSync(join(dist, 'migrations')).filter((f) => /^\d+-.*\.js$/.test(f)));
  const own = migrations(DIST);
  for (const dist of dists) {
    const missing = [...own].filter((m) => !migrations(dist).has(m));
    if (missing.length > 0) {
      throw new Error(`${dist} lacks ${missing.length} of the seed's migrations (${missing[0]}…): run the bench from the checkout with the fewest migrations`);
    }
  }
}

/** `--dist a,b` (paths) and `--pg-settings 'a;b'` apart from the numeric options. */
function options(argv = process.argv.slice(2)) {
  let rest = argv;
  const take = (name) => {
    const i = rest.indexOf(name);
    if (i < 0) return undefined;
    const value = rest[i + 1];
    rest = [...rest.slice(0, i), ...rest.slice(i + 2)];
    return value;
  };
  const dist = take('--dist');
  const dists = dist === undefined ? [DIST] : dist.split(',').map((d) => resolve(d));
  const settings = take('--pg-settings');
  const variants = settings === undefined ? [''] : settings.split(';').map((v) => v.trim());
  sameSchema(dists);
  return { dists, variants, ...numberOptions({ invoices: 1_000_000, entries: 100_000, group: 0, streams: 0, 'set-wise': 1, 'pg-stats': 0, 'wal-records': 0, 'table-stats': 0, profile: 0, 'heap-growing-percent': 0, rounds: 1 }, rest) };
}

/** pg_stat_user_tables' row counts (the server's view: backends report theirs at transaction end and exit). */
async function tableCounts(c) {
  await c.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await c.query(
    `SELECT relname, n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd, n_tup_hot_upd::float8 AS hot, n_tup_newpage_upd::float8 AS newpage, n_tup_del::float8 AS del
       FROM pg_stat_user_tables`,
  );
  return new Map(rows.map((r) => [r.relname, r]));
}

/** Per entry, the tables whose counts moved between two tableCounts. */
function tableDelta(before, after, entries) {
  const per = (n) => Math.round((n / entries) * 1000) / 1000;
  const out = {};
  for (const [name, a] of after) {
    const b = before.get(name) ?? { ins: 0, upd: 0, hot: 0, newpage: 0, del: 0 };
    const d = { inserted: per(a.ins - b.ins), updated: per(a.upd - b.upd), hot: per(a.hot - b.hot), new_page: per(a.newpage - b.newpage), deleted: per(a.del - b.del) };
    if (Object.values(d).some((v) => v !== 0)) out[name] = d;
  }
  return out;
}

async function main() {
  const opts = options();
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

    // Restarted with the extension loaded: statements run by triggers are counted apart (track = all).
    const statsSettings = opts['pg-stats'] > 0 ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.max=2000'] : [];
    const restart = async (settings) => {
      const { startEmbeddedPostgres } = require(join(DIST, 'shared/infrastructure/database/embedded-postgres.js'));
      const port = Number(new URL(db.url).port);
      await db.stop();
      db = await startEmbeddedPostgres(dataDir, port, () => undefined, { settings: [...statsSettings, ...settings] });
    };
    cleanups.push(() => db.stop());
    if (opts['pg-stats'] > 0) await restart([]);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    // Vacuumed as well (as a database that has served a while is): else autovacuum's first pass over
    // the freshly seeded tables — marking their pages all-visible, each with a full-page image
    // (data checksums) — ran during the first import measured, on its copy or the template.
    await pg.query('VACUUM ANALYZE');
    let postmaster = await postmasterOf(pg);
    if (opts['pg-stats'] > 0) await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Distinct open invoices (not disputed), spread over the customers: each entry pays a different one.
    const invoices = await openInvoicesForFile(pg, tenant.tenant_id, opts.entries);
    if (invoices.length === 0) throw new Error('no open invoices: seed more (--invoices)');
    const file = join(dataDir, 'bench.camt053.xml');
    const mix = await writeCamt(file, invoices, opts.entries);
    log(`${invoices.length} open invoices for ${opts.entries} entries (each paid in ${mix.invoices_paid_in_shares_of} share(s))`);
    const fileBytes = statSync(file).size;
    log(`wrote ${opts.entries} entries, ${(fileBytes / 1e6).toFixed(1)} MB`);

    const env = {
      ...(opts.group > 0 ? { BANK_IMPORT_GROUP_SIZE: String(opts.group) } : {}),
      BANK_IMPORT_SET_WISE: opts['set-wise'] ? 'true' : 'false',
      ...(opts.streams > 0 ? { BANK_IMPORT_STREAMS: String(opts.streams) } : {}),
    };
    const profileDir = join(require('node:os').tmpdir(), `bank-import-profile-${process.pid}`);
    const nodeArgs = [
      ...(opts['heap-growing-percent'] > 0 ? [`--heap-growing-percent=${opts['heap-growing-percent']}`] : []),
      ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ];
    // One import on the seeded database, or each build's imports on copies of it, alternating
    // (a template must have no connection: the copies are made from the maintenance database).
    const copies = opts.dists.length > 1 || opts.variants.length > 1 || opts.rounds > 1;
    const seeded = new URL(db.url).pathname.slice(1);
    const urlOf = (name) => Object.assign(new URL(db.url), { pathname: `/${name}` }).toString();
    await pg.end();
    cleanups.pop();
    const withClient = async (url, work) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    };
    const runs = [];
    // A variant's server settings: the cluster restarted with them (after the embedded server's own,
    // which a reload of postgresql.auto.conf could not override: they are given on its command line).
    const variantSettings = (variant) => variant.split(',').map((x) => x.trim()).filter((x) => x !== '' && !x.startsWith('sql:'));
    const useVariant = async (variant) => {
      if (opts.variants.length === 1 && variantSettings(variant).length === 0) return;
      await restart(variantSettings(variant));
      postmaster = await withClient(urlOf('postgres'), (c) => postmasterOf(c));
      const wrong = await withClient(urlOf('postgres'), async (c) => {
        const out = [];
        for (const setting of variantSettings(variant)) {
          const [key, ...value] = setting.split('=');
          const { rows } = await c.query('SELECT current_setting($1) AS v', [key]);
          if (rows[0].v.toLowerCase() !== value.join('=').toLowerCase()) out.push(`${key} is ${rows[0].v}`);
        }
        return out;
      });
      if (wrong.length > 0) throw new Error(`--pg-settings ${variant}: ${wrong.join(', ')}`);
    };
    const combos = opts.dists.flatMap((dist) => opts.variants.map((variant) => ({ dist, variant })));
    for (let round = 1; round <= opts.rounds; round++) {
      for (const { dist, variant } of combos) {
        const name = copies ? `bank_import_${runs.length + 1}` : seeded;
        const url = urlOf(name);
        let tablesBefore;
        if (copies) {
          log(`round ${round}, ${dist}${variant ? ` (${variant})` : ''}: copying the seeded database…`);
          await withClient(urlOf('postgres'), (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE "${seeded}"`));
        }
        try {
          await useVariant(variant);
          // `sql:STATEMENT` items: run on the import's copy (a table's storage settings, say).
          for (const item of variant.split(',').filter((s) => s.trim().startsWith('sql:'))) await withClient(url, (c) => c.query(item.trim().slice(4)));
          await withClient(urlOf('postgres'), (admin) => admin.query('CHECKPOINT'));
          const run = await serviceImport({
            url, tenant, file, postmaster, dist, env, nodeArgs, pollMs: 500, log,
            logFile: join(dataDir, `service-${runs.length + 1}.log`),
            beforePost: async () => {
              if (opts['pg-stats'] > 0) await withClient(url, (c) => c.query('SELECT pg_stat_statements_reset()'));
              if (opts['table-stats'] > 0) tablesBefore = await withClient(url, tableCounts);
            },
          });
          const tables = opts['table-stats'] > 0 ? tableDelta(tablesBefore, await withClient(url, tableCounts), opts.entries) : undefined;
          const statements =
            opts['pg-stats'] > 0
              ? await withClient(url, async (c) =>
                  (
                    await c.query(
                      `SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round((total_exec_time / $2)::numeric, 4) AS ms_per_entry, toplevel,
                              plans, round((total_plan_time / $2)::numeric, 4) AS plan_ms_per_entry,
                              left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
                         FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT $1`,
                      [opts['pg-stats'], opts.entries],
                    )
                  ).rows,
                )
              : undefined;
          const walTypes = opts['wal-records'] > 0 ? await walRecordTypes(url, run.wal.before, run.wal.after, opts.entries, opts['wal-records']) : undefined;
          runs.push({ dist, variant, run, statements, walTypes, tables });
        } finally {
          if (copies) await withClient(urlOf('postgres'), (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
        }
      }
    }
    const perEntry = (seconds) => Math.round((seconds * 1000 * 100) / opts.entries) / 100;
    const measured = runs.map(({ dist, variant, run, statements, walTypes, tables }) => {
      const { done, stagedMs, totalMs, rss, cpuSeconds, stagingCpuSeconds, wal } = run;
      const processingMs = totalMs - stagedMs;
      return {
        ...(copies ? { dist } : {}),
        ...(opts.variants.length > 1 ? { pg_settings: variant || 'none' } : {}),
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
        service_rss_mb: { idle: mb(rss.idle), peak_sampled: mb(rss.peak), peak_staging: mb(rss.phases.staging), peak_processing: mb(rss.phases.processing), vm_hwm: mb(rss.hwm) },
        cpu_seconds_to_202: { service: Math.round(stagingCpuSeconds.service * 100) / 100, postgres: Math.round(stagingCpuSeconds.postgres * 100) / 100 },
        cpu_seconds: { service: Math.round(cpuSeconds.service * 100) / 100, postgres: Math.round(cpuSeconds.postgres * 100) / 100 },
        cpu_ms_per_entry: { service: perEntry(cpuSeconds.service), postgres: perEntry(cpuSeconds.postgres) },
        // CPU of both processes over the import's wall-clock time: how many of the cores it kept busy.
        cores_used: Math.round(((cpuSeconds.service + cpuSeconds.postgres) / (totalMs / 1000)) * 100) / 100,
        wal_per_entry: walDelta(wal.before, wal.after, opts.entries),
        ...(statements ? { postgres_statements_by_time: statements } : {}),
        ...(walTypes ? { wal_per_entry_by_record_type: walTypes } : {}),
        ...(tables ? { table_rows_per_entry: tables } : {}),
      };
    });
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
          ...(copies ? { runs: measured } : measured[0]),
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
