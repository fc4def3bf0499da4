import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';

/** Helpers for tests that run the built server (dist/main.js) on its own embedded PostgreSQL. */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.connect(port, '127.0.0.1');
  });
}

/** Something else listening on `port` (as another program holding the default port would); undefined when it is taken already. */
export function occupy(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export interface RunningServer {
  child: ChildProcess;
  port: number;
  output(): string;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  /** the whole output once `pattern` appears in it; rejects with the output if the process exits first */
  waitFor(pattern: RegExp): Promise<string>;
}

/** Spawns `node script` and collects stdout and stderr together; `group`: in a process group of its own, as a terminal runs it. */
export function startProcess(script: string, env: Record<string, string | undefined>, port = 0, args: string[] = [], group = false): RunningServer {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk;
    listeners.forEach((l) => l());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (listeners.forEach((l) => l()), resolve(code))));
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output)) return listeners.delete(check), resolve(output);
        if (child.exitCode !== null || child.signalCode !== null) return listeners.delete(check), reject(new Error(`exited before ${pattern}:\n${output}`));
      };
      listeners.add(check);
      check();
    });
  return { child, port, output: () => output, exited, waitFor };
}

/** The server with DATA_DIR and its own HTTP port; resolved once it prints its banner. */
export async function startServer(mainJs: string, env: Record<string, string | undefined>): Promise<RunningServer> {
  const port = await freePort();
  const server = startProcess(mainJs, { HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', ...env, PORT: String(port) }, port);
  await server.waitFor(/client_secret:\s+\S+/);
  return server;
}

export async function stopServer(server: RunningServer): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

/** The pid in a cluster's postmaster.pid, when a PostgreSQL with that pid is alive. */
export function postmasterPid(clusterDir: string): number | undefined {
  const file = join(clusterDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  try {
    // Alive and a PostgreSQL (a pid file left by a crash may name another program by now).
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0].endsWith('postgres') ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Stops a PostgreSQL a failed test left running on `clusterDir` (fast shutdown) and waits for it. */
export async function stopLeftover(clusterDir: string): Promise<void> {
  const pid = postmasterPid(clusterDir);
  if (!pid) return;
  process.kill(pid, 'SIGINT');
  while (postmasterPid(clusterDir)) await new Promise((r) => setTimeout(r, 50));
}

/** The embedded cluster's port, from its postmaster.pid. */
export function postmasterPort(clusterDir: string): number {
  return Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
}

export async function health(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/health`)).status;
}
