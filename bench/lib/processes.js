'use strict';
/** Child processes of a benchmark run: spawn, wait until ready, sample memory, stop. */
const { spawn } = require('node:child_process');
const { createWriteStream, readFileSync, readdirSync } = require('node:fs');
const { createServer } = require('node:net');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Spawns `node <args>` with its output in `logFile`; the child's pid is node itself (RSS is the service's). */
function spawnNode(args, env, logFile) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return child;
}

async function waitForHttp(url, child, timeoutMs = 60_000, logFile) {
  const deadline = Date.now() + timeoutMs;
  let exited = null;
  child.exited.then((e) => (exited = e));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${url}: process exited (${JSON.stringify(exited)}) before it was ready; see ${logFile}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms; see ${logFile}`);
}

/** VmHWM is the kernel's high-water mark of the process's resident set: its peak RSS since start. */
function readProcStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: null, hwm: null };
  }
}

/**
 * Peak RSS: VmHWM where /proc exists (Linux), otherwise the largest of periodic `ps` samples.
 * Sampling also runs on Linux as a cross-check.
 */
class RssSampler {
  constructor(pid, intervalMs = 250) {
    this.pid = pid;
    this.maxSampled = 0;
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }
  sample() {
    let { rss } = readProcStatus(this.pid);
    if (rss === null) {
      try {
        const out = require('node:child_process').execFileSync('ps', ['-o', 'rss=', '-p', String(this.pid)], { encoding: 'utf8' });
        rss = Number(out.trim()) * 1024;
      } catch {
        rss = null;
      }
    }
    if (rss && rss > this.maxSampled) this.maxSampled = rss;
    if (rss && rss > (this.windowMax ?? 0)) this.windowMax = rss;
  }
  /** The largest RSS sampled since the previous call (per scenario). */
  windowPeak() {
    this.sample();
    const peak = this.windowMax ?? null;
    this.windowMax = 0;
    return peak;
  }
  /** Call before the process exits. */
  peak() {
    this.sample();
    const { hwm } = readProcStatus(this.pid);
    return Math.max(hwm ?? 0, this.maxSampled) || null;
  }
  stop() {
    clearInterval(this.timer);
  }
}

async function stopChild(child, timeoutMs = 15_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

/** The fields of /proc/<pid>/stat after the command name; null where /proc is missing. */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) the process has used so far; null where /proc is missing. */
function cpuSeconds(pid) {
  const f = procStat(pid);
  // f[11], f[12] are utime and stime (the 14th and 15th fields of the line), in clock ticks
  return f === null ? null : (f[11] + f[12]) / 100;
}

/**
 * CPU seconds all PostgreSQL processes on this machine have used so far: the live ones' own,
 * and the children the postmaster has reaped (backends of closed connections, autovacuum
 * workers), which the kernel adds to the postmaster's cutime and cstime.
 */
function postgresCpuSeconds() {
  let ticks = 0;
  let found = false;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let comm;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue; // the process ended while we looked
    }
    const f = comm === 'postgres' ? procStat(pid) : null;
    if (f === null) continue;
    ticks += f[11] + f[12] + f[13] + f[14];
    found = true;
  }
  return found ? ticks / 100 : null;
}

/**
 * CPU seconds of one PostgreSQL cluster: its postmaster (with the children it reaped: closed
 * backends, autovacuum workers) and its live children — not other clusters on the machine.
 */
function clusterCpuSeconds(postmaster) {
  const own = procStat(postmaster);
  if (own === null) return null;
  let ticks = own[11] + own[12] + own[13] + own[14];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const f = procStat(pid);
    if (f !== null && f[1] === postmaster) ticks += f[11] + f[12] + f[13] + f[14];
  }
  return ticks / 100;
}

/** The postmaster of the cluster a connected pg client talks to (its backend's parent). */
async function postmasterOf(client) {
  const { rows: [{ pid }] } = await client.query('SELECT pg_backend_pid() AS pid');
  return procStat(pid)?.[1] ?? null;
}

module.exports = { freePort, spawnNode, waitForHttp, RssSampler, stopChild, readProcStatus, cpuSeconds, postgresCpuSeconds, clusterCpuSeconds, postmasterOf };
