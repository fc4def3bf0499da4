import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../../src/bootstrap';
import { MIGRATIONS } from '../../../src/migrations';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { freePort, RunningServer, startProcess, stopServer } from '../../support/embedded-server';

/**
 * The database role of the Docker/compose setup (docs/adr/0031): docker/initdb/10-app-role.sql
 * run as the superuser on a fresh database, then the service's migrations as the role it
 * creates (not a superuser, owning only its schema), then the production server and the CLI on
 * that role. Proves no migration needs a superuser and that nothing lands outside the schema.
 */
const INIT_SQL = resolve(__dirname, '../../../docker/initdb/10-app-role.sql');

function adminUrl(database = 'postgres'): string {
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * The init script as the postgres image's entrypoint runs it with psql: psql's meta-commands
 * (\set, \getenv) dropped, the password variable filled in, the role under a name of this run.
 */
function initScript(role: string, password: string): string {
  return readFileSync(INIT_SQL, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n')
    .replaceAll(":'app_password'", `'${password}'`)
    .replaceAll('receivables_app', role);
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('the compose database role: not a superuser, owns only its schema', () => {
  const suffix = randomBytes(5).toString('hex');
  const role = `app_${suffix}`;
  const database = `role_${suffix}`;
  const password = randomBytes(18).toString('hex');
  let appUrl: string;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    await withClient(adminUrl(), (admin) => admin.query(`CREATE DATABASE ${database}`));
    await withClient(adminUrl(database), (admin) => admin.query(initScript(role, password)));
    const url = new URL(adminUrl(database));
    url.username = role;
    url.password = password;
    appUrl = url.toString();
  }, 300_000);

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await withClient(adminUrl(), async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
    });
  });

  it('creates a role without superuser, database, role or replication rights', async () => {
    const [row] = (
      await withClient(adminUrl(), (admin) =>
        admin.query('SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = $1', [role]),
      )
    ).rows;
    expect(row).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false, rolcanlogin: true });
  });

  it("closes the role's sessions left idle in a transaction (idle_in_transaction_session_timeout 60 s), with no statement limit for migrations", async () => {
    const [row] = (
      await withClient(appUrl, (app) =>
        app.query(`SELECT current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('statement_timeout') AS statement`),
      )
    ).rows;
    expect(row).toEqual({ idle: '1min', statement: '0' });
  });

  it('runs every migration as that role, and everything they create is its own, in its schema', async () => {
    await migrate(appUrl, () => undefined);
    await withClient(appUrl, async (app) => {
      const applied = await app.query('SELECT name FROM schema_migrations ORDER BY id');
      expect(applied.rows).toHaveLength(MIGRATIONS.length);
      const outside = await app.query(
        `SELECT n.nspname, c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
            AND (n.nspname <> $1 OR c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = $1))`,
        [role],
      );
      expect(outside.rows).toEqual([]);
      const functions = await app.query(
        `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`,
      );
      expect(functions.rows).toEqual([]);
      const owned = await app.query(`SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`, [role]);
      expect(owned.rows[0].n).toBeGreaterThan(20);
      // No rights outside its schema.
      await expect(app.query('CREATE TABLE public.intruder (id int)')).rejects.toMatchObject({ code: '42501' });
      await expect(app.query('CREATE DATABASE intruder')).rejects.toMatchObject({ code: '42501' });
      await expect(app.query('CREATE EXTENSION IF NOT EXISTS pgcrypto')).rejects.toThrow();
    });
    // Migrating again (a second instance, a restart) as the role is a no-op.
    await migrate(appUrl, () => undefined);
  }, 120_000);

  it('serves in production on that role: the CLI provisions a tenant, which gets a token and writes', async () => {
    const mainJs = await ensureBuilt('main.js');
    const cliJs = await ensureBuilt('cli/main.js');
    const env = { NODE_ENV: 'production', DATABASE_URL: appUrl, JWT_SECRET: randomBytes(48).toString('base64url'), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const created = await runNode(cliJs, ['tenant', 'create', '--name', 'Role Check', '--json'], env, 60_000);
    expect(created.code === 0 ? 0 : created.stderr).toBe(0);
    const { client_id: clientId, client_secret: clientSecret } = JSON.parse(created.stdout);

    const port = await freePort();
    const server = startProcess(mainJs, { ...env, PORT: String(port) }, port);
    servers.push(server);
    await server.waitFor(/listening on/);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    const token = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const customer = await fetch(`${base}/api/v1/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Acme', email: 'ap@acme.example', currency: 'usd' }) });
    expect(customer.status).toBe(201);
    const { id: customerId } = (await customer.json()) as { id: string };
    const invoice = await fetch(`${base}/api/v1/invoices`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ customer_id: customerId, line_items: [{ description: 'Consulting', quantity: 1, unit_amount: 10000 }] }),
    });
    expect(invoice.status).toBe(201);
    expect(await stopServer(server)).toBe(0);
  }, 120_000);
});
