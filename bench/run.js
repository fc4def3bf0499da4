#!/usr/bin/env node
'use strict';
/**
 * `npm run bench [-- --quick]`: seeds an embedded PostgreSQL of its own (bench/.results, never
 * the user's ./.data), starts the compiled service (dist/main.js) and the raw baseline
 * (bench/baseline/server.js) as child processes, loads both with autocannon scenario by
 * scenario, prints the table and the service's peak RSS, and rewrites this mode's block in
 * docs/benchmarks.md. Plain CommonJS on the compiled dist/, so it needs no TypeScript tooling.
 */
const { existsSync, mkdirSync, readFileSync, rmSync, readdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { createHash } = require('node:crypto');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { parseArgs } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, RssSampler, stopChild, cpuSeconds, clusterCpuSeconds, postmasterOf } = require('./lib/processes');
const { summarize, consoleTable, evaluateTargets, fmtRatio } = require('./lib/table');
const { machine, versions, runSection, writeReport, mb } = require('./lib/report');
const { buildScenarios, prepareScenarioData } = require('./lib/scenarios');
const { summariseProfile } = require('./lib/profile');
const { checkPaymentParity } = require('./lib/payment-parity');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');
const RESULTS = join(__dirname, '.results');
const MAX_RSS_MB = 300;

const log = (msg) => process.stdout.write(`${msg}\n`);
const cleanups = [];
async function cleanup() {
  while (cleanups.length) await cleanups.pop()().catch((e) => log(`cleanup: ${e.message}`));
}

async function main() {
  const started = Date.now();
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(DIST, 'main.js'))) throw new Error('dist/main.js is missing: run `npm run build` (npm run bench does it)');
  mkdirSync(RESULTS, { recursive: true });
  const seedKey = createHash('sha1').update(JSON.stringify(opts.seed)).digest('hex').slice(0, 8);
  const dataDir = opts.dataDir ?? join(RESULTS, opts.customSeed ? `db-${seedKey}` : `db-${opts.mode}`);
  const logDir = join(RESULTS, 'logs');
  mkdirSync(logDir, { recursive: true });

  // 1. The bench database: reused when it already holds this seed, rebuilt otherwise.
  const seedFile = join(dataDir, 'bench-seed.json');
  const previous = existsSync(seedFile) ? JSON.parse(readFileSync(seedFile, 'utf8')) : null;
  // Reused only when seeded with the same sizes by the same schema and seed code.
  const fingerprint = codeFingerprint();
  const reuse = !opts.reseed && previous && JSON.stringify(previous.params) === JSON.stringify(opts.seed) && previous.code === fingerprint;
  if (!reuse && existsSync(dataDir)) {
    await stopLeftoverPostgres(dataDir);
    log(`bench: removing ${dataDir} to seed from scratch`);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const { startEmbeddedPostgres } = require(join(DIST, 'shared/infrastructure/database/embedded-postgres.js'));
  const { migrate } = require(join(DIST, 'bootstrap.js'));
  const pgPort = existsSync(join(dataDir, 'connection.json')) ? 0 : await freePort();
  const db = await startEmbeddedPostgres(dataDir, pgPort, (m) => log(`bench: ${m}`));
  cleanups.push(() => db.stop());
  await migrate(db.url, (m) => log(`bench: ${m}`));

  let seed = reuse ? previous : null;
  if (seed) {
    log(`bench: reusing the seeded database in ${dataDir} (seeded in ${seed.seconds.toFixed(1)} s; --reseed to redo)`);
  } else {
    const { invoices, customers, payments, tenants } = opts.seed;
    const args = ['--invoices', invoices, '--customers', customers, '--payments', payments, '--tenants', tenants, '--largest', opts.seed.largest, '--out', seedFile];
    log(`bench: seeding ${invoices} invoices, ${customers} customers, ${payments} payments, ${tenants} tenant(s)`);
    const child = require('node:child_process').spawn(process.execPath, [join(DIST, 'cli/seed.js'), ...args.map(String)], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      stdio: 'inherit',
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`seed failed with exit code ${code}`);
    seed = JSON.parse(readFileSync(seedFile, 'utf8'));
    seed.code = fingerprint;
    writeFileSync(seedFile, JSON.stringify(seed, null, 2), { mode: 0o600 });
  }

  // 2. What the scenarios need (ids, customers, open invoices), straight from the database.
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  // PostgreSQL's CPU is this cluster's (its postmaster and backends), not every postgres on the machine.
  const postmaster = await postmasterOf(sql);
  const [{ version: pgVersion }] = (await sql.query('SHOW server_version')).rows.map((r) => ({ version: `PostgreSQL ${r.server_version}` }));
  const tenant = seed.tenants[0];
  const data = await prepareScenarioData(sql, tenant);
  await sql.end();

  // 3. The two servers. The rate limit is high enough never to refuse, but it is counted.
  const runId = new Date().toISOString().replace(/[:.]/g, '-');
  const [servicePort, baselinePort] = [await freePort(), await freePort()];
  const serviceLog = join(logDir, `service-${runId}.log`);
  const baselineLog = join(logDir, `baseline-${runId}.log`);
  const profileDir = join(RESULTS, 'profiles', runId);
  const nodeFlags = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  // Both run with the malloc setting `npm start` and the image use (README, configuration).
  const service = spawnNode([...nodeFlags, join(DIST, 'main.js')], {
    MALLOC_ARENA_MAX: '2',
    DATABASE_URL: db.url,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    // Production mode needs a real key (32+ random bytes); a fresh one per run.
    JWT_SECRET: require('node:crypto').randomBytes(48).toString('base64url'),
    RATE_LIMIT_REQUESTS: '1000000000',
    // The token scenario measures the endpoint's cost, not its per-client issue limit.
    TOKEN_ISSUE_LIMIT: '1000000000',
    // Attempts are counted before they are known not to be guesses: 50 concurrent ones exceed the default 10.
    TOKEN_FAILURE_LIMIT: '1000000000',
  }, serviceLog);
  cleanups.push(() => stopChild(service));
  const baseline = spawnNode([join(__dirname, 'baseline/server.js')], {
    MALLOC_ARENA_MAX: '2',
    DATABASE_URL: db.url,
    PORT: String(baselinePort),
    POOL_SIZE: '10',
  }, baselineLog);
  cleanups.push(() => stopChild(baseline));
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  await Promise.all([waitForHttp(`${serviceUrl}/health`, service, 60_000, serviceLog), waitForHttp(`${baselineUrl}/health`, baseline, 30_000, baselineLog)]);
  const serviceRss = new RssSampler(service.pid);
  const baselineRss = new RssSampler(baseline.pid);
  cleanups.push(async () => {
    serviceRss.stop();
    baselineRss.stop();
  });

  const token = await getToken(serviceUrl, tenant);
  const targets = {
    baseline: { name: 'baseline', url: baselineUrl, headers: { 'x-tenant-id': tenant.tenant_id }, pid: baseline.pid },
    service: { name: 'service', url: serviceUrl, headers: { authorization: `Bearer ${token}` }, pid: service.pid },
  };
  const scenarios = (await buildScenarios({ data, tenant, targets, log })).filter((s) => !opts.only || opts.only.includes(s.id));

  // Same answers from both, or the comparison would be meaningless.
  for (const scenario of scenarios.filter((s) => s.compare)) {
    const problem = await compareAnswers(scenario, targets);
    if (problem) log(`bench: WARNING ${scenario.id}: service and baseline answer differently: ${problem}`);
  }

  // The payment POST writes: the same payments to both servers, each on a copy of a small seed.
  if (scenarios.some((s) => s.id === 'create-payment')) {
    log('bench: POST /payments on the service and the baseline, each on a copy of a small seed, rows compared:');
    const { problems, statementDifferences } = await checkPaymentParity({ log });
    for (const p of problems) log(`bench: WARNING create-payment: service and baseline write differently: ${p}`);
    for (const d of statementDifferences) log(`bench: WARNING create-payment: service and baseline run different statements: ${d}`);
    if (problems.length + statementDifferences.length === 0) log('bench: same answers, rows and statements (in the same order) from both');
  }

  // 4. Scenario by scenario: the baseline, then the service, each after a warm-up.
  log(`bench: ${scenarios.length} scenarios × 2 servers, ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s each`);
  const rows = [];
  for (const scenario of scenarios) {
    const row = { id: scenario.id, name: scenario.name, targets: scenario.targets, service: null, baseline: null };
    // Both servers warm up before either is measured, so neither pays for cold caches alone.
    for (const target of [targets.baseline, targets.service]) {
      const problem = await probe(scenario, target);
      if (problem) log(`bench: ${scenario.id} on the ${target.name}: ${problem}`);
      if (opts.warmup > 0) await load(scenario, target, opts.warmup, opts.connections);
    }
    for (const target of [targets.baseline, targets.service]) {
      const [cpuBefore, pgBefore] = [cpuSeconds(target.pid), clusterCpuSeconds(postmaster)];
      const result = await load(scenario, target, opts.duration, opts.connections);
      const [cpuAfter, pgAfter] = [cpuSeconds(target.pid), clusterCpuSeconds(postmaster)];
      row[target.name] = summarize(result);
      // CPU per answered request: the server process's own, and PostgreSQL's (all its processes).
      const perRequest = (before, after) => (before === null || after === null || !result['2xx'] ? null : ((after - before) * 1000) / result['2xx']);
      row[target.name].cpuMs = perRequest(cpuBefore, cpuAfter);
      row[target.name].pgCpuMs = perRequest(pgBefore, pgAfter);
      const codes = Object.entries(result.statusCodeStats ?? {}).filter(([c]) => !c.startsWith('2'));
      if (codes.length) log(`bench: ${scenario.id} on the ${target.name}: non-2xx ${JSON.stringify(Object.fromEntries(codes.map(([c, v]) => [c, v.count])))}`);
    }
    const r = row.baseline.rps > 0 ? row.service.rps / row.baseline.rps : null;
    const cpu = (s) => (s.cpuMs === null ? '' : ` ${s.cpuMs.toFixed(2)} CPU-ms/req`) + (s.pgCpuMs === null ? '' : ` (PostgreSQL ${s.pgCpuMs.toFixed(2)})`);
    row.service.rssPeak = serviceRss.windowPeak();
    log(
      `  ${scenario.name.padEnd(44)} service ${row.service.rps.toFixed(0).padStart(6)} req/s p99 ${String(row.service.p99).padStart(4)} ms${cpu(row.service)} | ` +
        `baseline ${row.baseline.rps.toFixed(0).padStart(6)} req/s p99 ${String(row.baseline.p99).padStart(4)} ms${cpu(row.baseline)} | ${fmtRatio(r)}× | service RSS ≤ ${mb(row.service.rssPeak)}`,
    );
    rows.push(row);
  }

  // 5. Peak memory is read before the processes exit; the profile is written on exit.
  const peakRssBytes = serviceRss.peak();
  const baselinePeakRssBytes = baselineRss.peak();
  await stopChild(service);
  await stopChild(baseline);

  const targetResults = evaluateTargets(rows, { maxRssMb: MAX_RSS_MB, peakRssBytes });
  log('');
  log(consoleTable(rows));
  log('');
  log(`Peak RSS of the service: ${mb(peakRssBytes)} (baseline ${mb(baselinePeakRssBytes)})`);
  log(`Targets met: ${targetResults.filter((t) => t.met).length} of ${targetResults.length}`);
  for (const t of targetResults.filter((x) => !x.met)) log(`  missed: ${t.scenario}: ${t.target} (measured ${t.value})`);

  if (opts.profile) {
    const files = existsSync(profileDir) ? readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')) : [];
    if (files.length) {
      const summary = summariseProfile(join(profileDir, files[0]));
      log(`\nCPU profile ${join(profileDir, files[0])}\n${summary}`);
    } else {
      log('bench: no CPU profile was written');
    }
  }

  const section = runSection({
    mode: opts.mode + (opts.customSeed ? ' (custom seed)' : '') + (opts.only ? ` (only ${opts.only.join(',')})` : ''),
    date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    machine: machine(),
    versions: versions(pgVersion),
    seed: describeSeed(seed),
    settings: { connections: opts.connections, duration: opts.duration, warmup: opts.warmup },
    rows,
    peakRssBytes,
    baselinePeakRssBytes,
    targets: targetResults,
  });
  // A profiled or partial run is not representative: it is printed, not recorded.
  if (opts.write && !opts.profile && !opts.only && !opts.customSeed) {
    writeReport(join(ROOT, 'docs', 'benchmarks.md'), opts.mode, section);
    log(`bench: wrote docs/benchmarks.md (${opts.mode} block)`);
  }
  log(`bench: done in ${((Date.now() - started) / 1000).toFixed(0)} s; logs in ${logDir}`);
}

/** Hash of the compiled migrations and seed code: a bench database made by other code is rebuilt. */
function codeFingerprint() {
  const hash = createHash('sha1');
  for (const dir of ['migrations', 'cli/seed']) {
    const full = join(DIST, dir);
    if (!existsSync(full)) continue;
    for (const file of readdirSync(full).filter((f) => f.endsWith('.js')).sort()) hash.update(file).update(readFileSync(join(full, file)));
  }
  hash.update(readFileSync(join(DIST, 'cli/seed.js')));
  return hash.digest('hex').slice(0, 12);
}

function describeSeed(seed) {
  const p = seed.params;
  const parts = [`${p.invoices.toLocaleString('en-US')} invoices, ${p.customers.toLocaleString('en-US')} customers, ${p.payments.toLocaleString('en-US')} payments in ${p.tenants} tenant(s)`];
  if (seed.seconds !== undefined) parts.push(`seeded in ${seed.seconds.toFixed(1)} s`);
  if (seed.detail) parts.push(seed.detail);
  return parts.join('; ') + '.';
}

async function getToken(url, tenant) {
  const res = await fetch(`${url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/** Builds one concrete request of a scenario for a target. */
function requestFor(scenario, target, i) {
  const r = scenario.request(target.name, i);
  const headers = { ...target.headers, ...(r.headers ?? {}) };
  let body;
  if (r.body !== undefined) {
    body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    headers['content-type'] ??= 'application/json';
  }
  if (r.noAuth) delete headers.authorization;
  return { method: r.method ?? 'GET', path: r.path, headers, body };
}

/** One request before the load, so a broken scenario is reported instead of measured. */
async function probe(scenario, target) {
  const r = requestFor(scenario, target, 0);
  try {
    const res = await fetch(`${target.url}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
    const text = await res.text();
    if (res.status >= 300) return `probe ${r.method} ${r.path} answered ${res.status}: ${text.slice(0, 300)}`;
    return scenario.check ? scenario.check(JSON.parse(text), target.name) : null;
  } catch (e) {
    return `probe failed: ${e.message}`;
  }
}

async function compareAnswers(scenario, targets) {
  const bodies = [];
  for (const target of [targets.service, targets.baseline]) {
    const r = requestFor(scenario, target, 0);
    const res = await fetch(`${target.url}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
    const body = await res.json().catch(() => null);
    if (body) {
      delete body.generated_at;
      delete body.next_cursor;
    }
    bodies.push(JSON.stringify(body));
  }
  if (bodies[0] === bodies[1]) return null;
  let at = 0;
  while (bodies[0][at] === bodies[1][at]) at++;
  return `service …${bodies[0].slice(Math.max(0, at - 60), at + 60)}… baseline …${bodies[1].slice(Math.max(0, at - 60), at + 60)}…`;
}

function load(scenario, target, seconds, connections) {
  let i = 1;
  return autocannon({
    url: target.url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        setupRequest: (req) => {
          const r = requestFor(scenario, target, i++);
          return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body ?? Buffer.alloc(0) };
        },
      },
    ],
  });
}

/** A PostgreSQL left running by an interrupted bench run must stop before its directory goes. */
async function stopLeftoverPostgres(dataDir) {
  const pidFile = join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid) return;
  try {
    process.kill(pid, 0);
  } catch {
    return;
  }
  log(`bench: stopping the PostgreSQL (pid ${pid}) an earlier run left on ${dataDir}`);
  process.kill(pid, 'SIGINT'); // fast shutdown
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`PostgreSQL pid ${pid} did not stop`);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`bench: ${signal}, stopping`);
    cleanup().finally(() => process.exit(130));
  });
}

main()
  .then(cleanup)
  .catch(async (error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    await cleanup();
    process.exit(1);
  });
