'use strict';
/**
 * One bank import through the compiled service, measured: what bench/bank-import.js and
 * bench/lib/bank-import-compare.js (bench/bank-import-baseline.js) both do. Starts the service
 * (`dist`/main.js, NODE_ENV=production) on `url`, takes a token for `tenant`, posts `file` (a
 * camt.053, streamed from disk) to POST /bank-statements, polls the import until it completes and
 * stops the service. Measures the service's RSS (VmRSS sampled every 50 ms: idle before the post,
 * peak while the file is read and staged — until the 202 — and while the credits are recorded,
 * and VmHWM) and the CPU seconds of the service and of PostgreSQL (the cluster of `postmaster`)
 * from the post to completed, and the cluster's WAL, checkpoints and blocks written over the same
 * span (bench/lib/wal-stats.js: the second snapshot once the service has stopped, its backends'
 * counts flushed as they exit).
 */
const { createReadStream } = require('node:fs');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { freePort, spawnNode, waitForHttp, stopChild, readProcStatus, cpuSeconds, clusterCpuSeconds } = require('./processes');
const { DIST } = require('./scratch');
const { walSnapshot } = require('./wal-stats');

/** Samples a process's VmRSS every `ms`: the peak overall and per phase (`phase(name)` switches). */
function rssSampler(pid, ms = 50) {
  const idle = readProcStatus(pid).rss;
  let peak = idle ?? 0;
  let current = null;
  const phases = {};
  const sample = () => {
    const { rss } = readProcStatus(pid);
    if (rss === null) return;
    if (rss > peak) peak = rss;
    if (current !== null && rss > (phases[current] ?? 0)) phases[current] = rss;
  };
  const timer = setInterval(sample, ms);
  return {
    phase(name) {
      sample();
      current = name;
      phases[name] ??= readProcStatus(pid).rss ?? 0;
    },
    /** Stops sampling: idle, peak, the phases' peaks and VmHWM (bytes). */
    stop() {
      sample();
      clearInterval(timer);
      return { idle, peak, phases, hwm: readProcStatus(pid).hwm };
    },
  };
}

/** Posts the file and polls the import every `pollMs` until it completes. */
async function postAndPoll({ base, token, file, pollMs, onAccepted = () => undefined }) {
  const t0 = Date.now();
  const posted = await fetch(`${base}/bank-statements?format=camt.053`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
    body: createReadStream(file),
    duplex: 'half',
  });
  const accepted = await posted.json();
  if (posted.status !== 202) throw new Error(`POST: ${posted.status} ${JSON.stringify(accepted)}`);
  const stagedMs = Date.now() - t0;
  onAccepted(accepted, stagedMs);
  for (;;) {
    const done = await (await fetch(`${base}/bank-statements/${accepted.id}`, { headers: { authorization: `Bearer ${token}` } })).json();
    if (done.status === 'completed') return { accepted, done, stagedMs, totalMs: Date.now() - t0 };
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * The import, measured. `env`: the service's extra environment (BANK_IMPORT_* settings);
 * `nodeArgs`: node's own options (--cpu-prof …); `beforePost`: awaited just before the
 * measurement starts (e.g. pg_stat_statements_reset()).
 */
async function serviceImport({ url, tenant, file, postmaster, logFile, dist = DIST, env = {}, nodeArgs = [], pollMs = 200, beforePost = async () => undefined, log = () => undefined }) {
  const port = await freePort();
  const child = spawnNode([...nodeArgs, join(dist, 'main.js')], {
    DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'), MALLOC_ARENA_MAX: '2', BANK_IMPORT_POLL_MS: '100',
    ...env,
  }, logFile);
  let wal0;
  let result;
  try {
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    const token = (
      await (await fetch(`${base}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
      })).json()
    ).access_token;
    await beforePost();
    wal0 = await walSnapshot(url);
    const rss = rssSampler(child.pid);
    rss.phase('staging');
    const cpu0 = { service: cpuSeconds(child.pid), postgres: clusterCpuSeconds(postmaster) };
    let staging;
    const run = await postAndPoll({
      base, token, file, pollMs,
      onAccepted: (accepted, ms) => {
        // CPU until the 202 (the file read, parsed and staged): sampled as the answer arrives.
        staging = { service: cpuSeconds(child.pid) - cpu0.service, postgres: clusterCpuSeconds(postmaster) - cpu0.postgres };
        rss.phase('processing');
        log(`202 after ${ms} ms: ${accepted.entries_total} entries staged`);
      },
    });
    const cpu1 = { service: cpuSeconds(child.pid), postgres: clusterCpuSeconds(postmaster) };
    result = { ...run, rss: rss.stop(), cpuSeconds: { service: cpu1.service - cpu0.service, postgres: cpu1.postgres - cpu0.postgres }, stagingCpuSeconds: staging };
  } finally {
    await stopChild(child);
  }
  return { ...result, wal: { before: wal0, after: await walSnapshot(url) } };
}

module.exports = { serviceImport, postAndPoll, rssSampler };
