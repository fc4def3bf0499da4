import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { createTestDatabase } from '../../support/database';
import { freePort, RunningServer, startProcess, stopServer } from '../../support/embedded-server';

/**
 * The built server as the Docker image runs it (NODE_ENV=production, docs/adr/0031): it
 * refuses to start without a database and a real token key, saying so in one sentence, and
 * with both it serves without an embedded PostgreSQL (the module cannot even be loaded) and
 * without demo credentials.
 */
const FORBID_EMBEDDED = resolve(__dirname, '../../support/forbid-embedded-postgres.js');
const SECRET = randomBytes(48).toString('base64url');
const DEMO = /client_secret|client_id:|Demo tenant|demo-credentials/i;

describe('NODE_ENV=production', () => {
  let mainJs: string;
  let cliJs: string;
  let seedJs: string;
  let dataDir: string;
  let db: { url: string; drop(): Promise<void> };
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    mainJs = await ensureBuilt('main.js');
    cliJs = await ensureBuilt('cli/main.js');
    seedJs = await ensureBuilt('cli/seed.js');
    db = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'receivables-prod-'));
    chmodSync(dataDir, 0o755);
  }, 180_000);

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The server's environment: production, a fresh DATA_DIR it must never use, the embedded module forbidden. */
  const env = (extra: Record<string, string>) => ({
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    NODE_OPTIONS: `--require ${JSON.stringify(FORBID_EMBEDDED)}`,
    DATABASE_URL: '',
    JWT_SECRET: '',
    JWT_SECRET_FILE: '',
    ...extra,
  });

  async function refused(extra: Record<string, string>): Promise<string> {
    const result = await runNode(mainJs, [], { ...env(extra), PORT: String(await freePort()) }, 110_000);
    expect(result.code).not.toBe(0);
    const sentence = result.stderr.replace(/embedded-postgres modules loaded: none\n$/, '');
    expect(sentence).toMatch(/^[^\n]+\.\n$/); // one sentence, nothing else
    expect(result.stderr).toContain('embedded-postgres modules loaded: none');
    expect(result.stdout).not.toMatch(DEMO);
    expect(readdirSync(dataDir)).toEqual([]); // no embedded cluster, no demo credentials file
    return sentence;
  }

  it('refuses to start without DATABASE_URL, naming it', async () => {
    expect(await refused({ JWT_SECRET: SECRET })).toMatch(/needs DATABASE_URL to be set: DATABASE_URL to your PostgreSQL server\.\n$/);
  }, 300_000);

  it('refuses to start without JWT_SECRET, or with a short or published one', async () => {
    expect(await refused({ DATABASE_URL: db.url })).toMatch(/needs JWT_SECRET \(or JWT_SECRET_FILE\) to be set/);
    expect(await refused({ DATABASE_URL: db.url, JWT_SECRET: 'too-short-a-key' })).toMatch(/JWT_SECRET: it is 15 bytes long; set it to at least 32 random bytes/);
    expect(await refused({ DATABASE_URL: db.url, JWT_SECRET: 'change-me-in-production-to-a-long-random-string' })).toMatch(/published example value/);
    expect(await refused({})).toMatch(/needs DATABASE_URL and JWT_SECRET/);
    expect(await refused({ DATABASE_URL: db.url, JWT_SECRET_FILE: join(tmpdir(), `missing-${SECRET}`) })).toMatch(/cannot be read \(ENOENT\)/);
  }, 180_000);

  it('the CLI and the seed do not start an embedded database or make demo tenants either', async () => {
    const cli = await runNode(cliJs, ['tenant', 'create', '--name', 'Nope', '--json'], env({}), 60_000);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('error: NODE_ENV=production needs DATABASE_URL to be set');
    const seed = await runNode(seedJs, ['--invoices', '1', '--customers', '1', '--payments', '0'], env({ DATABASE_URL: db.url }), 60_000);
    expect(seed.code).toBe(1);
    expect(seed.stderr).toContain('refused under NODE_ENV=production');
    expect(readdirSync(dataDir)).toEqual([]);
  }, 120_000);

  async function serves(extra: Record<string, string>): Promise<string> {
    const port = await freePort();
    const server = startProcess(mainJs, { ...env(extra), PORT: String(port) }, port);
    servers.push(server);
    await server.waitFor(/listening on/);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect(await stopServer(server)).toBe(0);
    const output = server.output();
    expect(output).not.toMatch(DEMO);
    expect(output).toContain('embedded-postgres modules loaded: none');
    expect(output.replace('embedded-postgres modules loaded: none', '')).not.toMatch(/embedded|initdb/i);
    expect(readdirSync(dataDir)).toEqual([]);
    return output;
  }

  it('serves /health with DATABASE_URL and JWT_SECRET: no embedded PostgreSQL, no demo credentials', async () => {
    await serves({ DATABASE_URL: db.url, JWT_SECRET: SECRET });
  }, 120_000);

  it('takes the key from JWT_SECRET_FILE', async () => {
    const file = join(dataDir, '..', `receivables-jwt-${randomBytes(4).toString('hex')}`);
    writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    try {
      await serves({ DATABASE_URL: db.url, JWT_SECRET_FILE: file });
    } finally {
      rmSync(file, { force: true });
    }
    expect(existsSync(file)).toBe(false);
  }, 120_000);
});
