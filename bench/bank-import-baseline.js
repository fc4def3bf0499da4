#!/usr/bin/env node
'use strict';
/**
 * The bank-file import against its raw-SQL baseline (issue 15): `npm run build && node
 * bench/bank-import-baseline.js [--invoices 1000000] [--entries 100000] [--group 0] [--streams 1] [--baseline-group 200]`.
 *
 * Seeds one embedded PostgreSQL and writes one camt.053 exactly as bench/bank-import.js does
 * (bench/lib/bank-file.js), then copies the seeded database twice (CREATE DATABASE … TEMPLATE) so
 * both importers start from identical data: the compiled service imports the file on one copy
 * (POST /bank-statements, polled to completed; `--group` sets BANK_IMPORT_GROUP_SIZE, `--streams`
 * BANK_IMPORT_STREAMS: 1 by default, like the baseline's one connection), the baseline
 * (bench/baseline/bank-import.js, a child process) on the other. Prints one JSON object: each
 * side's time to staged (the 202) and to completed, entries/s, CPU seconds of the importer and of
 * this bench's PostgreSQL cluster (not other clusters on the machine), peak RSS, the import's
 * counts and the rows each wrote (bench/lib/bank-import-compare.js), whether those are equal, and
 * the ratios service / baseline. A measurement, not a test.
 */
const { execFileSync } = require('node:child_process');
const { statSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { DIST, scratchDatabase } = require('./lib/scratch');
const { writeCamt, openInvoicesForFile } = require('./lib/bank-file');
const { compareImports } = require('./lib/bank-import-compare');

const log = (msg) => process.stderr.write(`${msg}\n`);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function main() {
  const opts = numberOptions({ invoices: 1_000_000, entries: 100_000, group: 0, streams: 1, 'baseline-group': 200 });
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
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    // Vacuumed as well (as a database that has served a while is): else autovacuum's first pass over
    // the freshly seeded tables — marking their pages all-visible, each with a full-page image
    // (data checksums) — ran during the first import measured, on its copy or the template.
    await pg.query('VACUUM ANALYZE');
    const invoices = await openInvoicesForFile(pg, tenant.tenant_id, opts.entries);
    await pg.end();
    if (invoices.length === 0) throw new Error('no open invoices: seed more (--invoices)');
    const file = join(dataDir, 'bench.camt053.xml');
    const mix = await writeCamt(file, invoices, opts.entries);
    log(`wrote ${opts.entries} entries against ${invoices.length} open invoices, ${(statSync(file).size / 1e6).toFixed(1)} MB`);

    const { service, baseline, serviceRows, baselineRows, serviceDigests, baselineDigests, differing, equal } = await compareImports({
      url: db.url, tenant, file, group: opts.group, streams: opts.streams, baselineGroup: opts['baseline-group'], workDir: dataDir, log,
    });
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
          service_streams: opts.streams,
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
