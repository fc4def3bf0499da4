#!/usr/bin/env node
'use strict';
/**
 * What one reminder scan costs for a tenant with many invoices:
 * `npm run build && node bench/reminders-scan.js [--invoices 1000000]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir), seeds one tenant with `npm run seed`'s
 * generator (three years of history up to today), turns the tenant's reminders on with the
 * default days (-3, 1, 7, 14, 30) and runs the service's ReminderScanJob in-process (no timer):
 *  1. the day's first scan (a one-day window: only the due dates with a reminder day today);
 *  2. the same scan again (every reminder already sent: what each 5-minute scan costs);
 *  3. after seven days without scans (an eight-day window: catch-up);
 * and, for comparison, a query over every open invoice the tenant has (what a scan that looked
 * at all open invoices would read each time). Prints one JSON object. A measurement, not a test.
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { DIST, scratchDatabase } = require('./lib/scratch');

async function timed(fn) {
  const started = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number((process.hrtime.bigint() - started) / 1_000_000n), result };
}

async function main() {
  const opts = numberOptions({ invoices: 1_000_000 });
  require('reflect-metadata');
  const { loadConfig } = require(join(DIST, 'config/config.js'));
  const { createApp } = require(join(DIST, 'app.factory.js'));
  const { ReminderScanJob } = require(join(DIST, 'modules/reminders/infrastructure/reminder-scan.job.js'));
  const { openInvoiceSql } = require(join(DIST, 'shared/infrastructure/query/receivable.sql.js'));
  const cleanups = [];
  let app;
  let pg;
  try {
    const { db } = await scratchDatabase('reminders-bench-', cleanups);
    pg = new Client({ connectionString: db.url });
    const seedStarted = Date.now();
    const summary = JSON.parse(
      execFileSync(process.execPath, [join(DIST, 'cli/seed.js'), '--invoices', String(opts.invoices), '--customers', String(Math.max(1, Math.round(opts.invoices / 100))), '--json'], {
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 * 1024 * 1024,
      }).toString(),
    );
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const tenantId = summary.tenants[0].tenant_id;
    await pg.connect();
    await pg.query(
      `INSERT INTO tenant_settings (tenant_id, timezone, reminders_enabled, updated_at) VALUES ($1, 'America/Los_Angeles', true, now())
       ON CONFLICT (tenant_id) DO UPDATE SET reminders_enabled = true`,
      [tenantId],
    );
    await pg.query('ANALYZE');

    app = await createApp({ config: loadConfig({ ...process.env, WORKERS_ENABLED: 'false', LOG_LEVEL: 'silent' }), databaseUrl: db.url });
    await app.init();
    const job = app.get(ReminderScanJob);

    const first = await timed(() => job.runOnce());
    const again = await timed(() => job.runOnce());
    // Seven days without scans: forget them, and what was sent today.
    await pg.query(`DELETE FROM invoice_reminders WHERE tenant_id = $1`, [tenantId]);
    await pg.query(`UPDATE reminder_scans SET complete_through = complete_through - 7 WHERE tenant_id = $1`, [tenantId]);
    const catchUp = await timed(() => job.runOnce());

    const [{ open }] = (
      await pg.query(`SELECT count(*)::int AS open FROM invoices i WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')}`, [tenantId])
    ).rows;
    const everyOpen = await timed(() =>
      pg.query(
        `SELECT count(*) FROM invoices i WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')}
            AND NOT EXISTS (SELECT 1 FROM invoice_reminders r WHERE r.tenant_id = i.tenant_id AND r.invoice_id = i.id AND r.due_date = i.due_date)`,
        [tenantId],
      ),
    );
    process.stdout.write(
      `${JSON.stringify(
        {
          invoices: opts.invoices,
          open_invoices: open,
          seed_seconds: seedSeconds,
          first_scan_of_the_day: { ms: first.ms, reminders: first.result },
          repeated_scan_same_day: { ms: again.ms, reminders: again.result },
          catch_up_after_7_days: { ms: catchUp.ms, reminders: catchUp.result },
          query_over_every_open_invoice_ms: everyOpen.ms,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await app?.close();
    await pg?.end().catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
