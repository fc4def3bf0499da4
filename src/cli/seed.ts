import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from 'pg';
import { openDatabase } from '../bootstrap';
import { loadConfig } from '../config/config';
import { isProduction } from '../config/production';
import { CreatedClient, CreateTenantCommand } from '../modules/auth';
import { TransactionalCommandBus } from '../shared/infrastructure/database/transactional-command-bus';
import { CliModule } from './cli.module';
import { parseSeedArgs, SEED_USAGE, SeedOptions } from './seed/seed-args';
import { seedTenantData, SeedReport } from './seed/seed-data';

/**
 * `npm run seed -- --invoices 1000000 --customers 10000 --payments 300000 [--tenants N]`
 *
 * Creates N new tenants (each with an API client, through the auth module's own command, so
 * the secret is hashed as the service would) and bulk-loads realistic receivables into them
 * with COPY: customers, invoices with line items, payments with their applications, and the
 * customers' ledger — exactly the rows the service itself would have written. Existing data
 * is left alone. The credentials are printed (and written with --out) because secrets are
 * stored only hashed.
 */
const progress = (text: string) => process.stderr.write(`${text}\n`);

async function main(argv: string[]): Promise<number> {
  let opts: SeedOptions;
  try {
    opts = parseSeedArgs(argv);
  } catch (error) {
    progress(`error: ${(error as Error).message}\n${SEED_USAGE}`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${SEED_USAGE}\n`);
    return 0;
  }
  if (isProduction()) {
    progress('error: the seed creates demo tenants with printed credentials and is refused under NODE_ENV=production; unset NODE_ENV to seed a development database.');
    return 1;
  }
  const started = Date.now();
  const config = loadConfig();
  const db = await openDatabase(config, progress);
  try {
    const tenants = await createTenants(config, db.url, opts.tenants);
    const client = new Client({ connectionString: db.url, application_name: 'receivables-seed' });
    // A connection the server ends between two statements: said here, and the next statement fails
    // the seed (exit 1) — never an unhandled 'error' event (docs/adr/0055).
    client.on('error', (error) => progress(`error: the seed's database connection was lost: ${error.message}`));
    await client.connect();
    const reports: SeedReport[] = [];
    try {
      // Bulk data is disposable until the seed finishes: no need to wait for each WAL flush.
      await client.query('SET synchronous_commit = off');
      for (let t = 0; t < tenants.length; t++) {
        reports.push(await seedTenantData(db.url, client, tenants[t].tenant_id, share(opts, t, tenants.length), opts, `tenant ${t + 1}/${tenants.length}`));
      }
    } finally {
      await client.end();
    }
    const seconds = (Date.now() - started) / 1000;
    const summary = {
      params: { invoices: opts.invoices, customers: opts.customers, payments: opts.payments, tenants: opts.tenants, largest: opts.largest },
      seconds,
      as_of: opts.asOf,
      tenants: tenants.map((t, i) => ({ tenant_id: t.tenant_id, client_id: t.client_id, client_secret: t.client_secret, ...reports[i] })),
    };
    if (opts.out) {
      mkdirSync(dirname(opts.out), { recursive: true });
      writeFileSync(opts.out, JSON.stringify(summary, null, 2), { mode: 0o600 });
    }
    const rows = reports.reduce((n, r) => n + r.rows, 0);
    progress(`seeded ${rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s`);
    if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      for (const t of summary.tenants) {
        process.stdout.write(`tenant ${t.tenant_id}\n  client_id:     ${t.client_id}\n  client_secret: ${t.client_secret}\n`);
      }
    }
    return 0;
  } finally {
    await db.stop();
  }
}

/** Tenants and their first client through the auth module's command (hashing the secret). */
async function createTenants(config: ReturnType<typeof loadConfig>, url: string, count: number): Promise<CreatedClient[]> {
  const app = await NestFactory.createApplicationContext(CliModule.register({ config: { ...config, dbPoolSize: 2 }, databaseUrl: url }), {
    logger: false,
    abortOnError: false,
  });
  try {
    const bus = app.get(TransactionalCommandBus);
    const created: CreatedClient[] = [];
    const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
    for (let i = 0; i < count; i++) created.push(await bus.execute<CreatedClient>(new CreateTenantCommand(`Seed tenant ${i + 1} (${stamp})`)));
    return created;
  } finally {
    await app.close();
  }
}

/** Tenant t's share of each count; the remainder goes to the first tenants. */
function share(opts: SeedOptions, t: number, n: number): { invoices: number; customers: number; payments: number } {
  const part = (total: number) => Math.floor(total / n) + (t < total % n ? 1 : 0);
  return { invoices: part(opts.invoices), customers: Math.max(1, part(opts.customers)), payments: part(opts.payments) };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    progress(`seed failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
