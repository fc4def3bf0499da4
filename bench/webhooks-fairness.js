#!/usr/bin/env node
'use strict';
/**
 * Noisy-neighbour measurement for the webhook relay (issue #12 finding 2, ADR 34):
 * `npm run build && node bench/webhooks-fairness.js [--hanging 16] [--attack-rate 20]
 * [--rate 5] [--seconds 30] [--instances 1]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir), the compiled service (dist/main.js) as
 * child process(es), and two receivers on loopback:
 *  - tenant A registers `--hanging` endpoints whose receiver accepts every connection and never
 *    answers (the sockets are held until the end); A commits `--attack-rate` events per second
 *    for the whole run, each going to all of them;
 *  - tenant B has one endpoint that answers 200 at once; B commits `--rate` events per second.
 * Reported: B's commit-to-delivery delay (p50/p99/max) while the attack runs, and how many of A's
 * requests were in flight at the end. WEBHOOK_* variables are passed on to the service (the
 * default WEBHOOK_TIMEOUT_MS is 15 s, as in production).
 */
const { createServer } = require('node:http');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { numberOptions } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, stopChild } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');

const log = (msg) => process.stdout.write(`${msg}\n`);
const now = () => performance.timeOrigin + performance.now();

function relayEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WEBHOOK_')));
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function listen(server, cleanups) {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return (path) => `http://127.0.0.1:${server.address().port}${path}`;
}

async function main() {
  const opts = numberOptions({ hanging: 16, 'attack-rate': 20, rate: 5, seconds: 30, instances: 1 });
  const { OutboxWriter } = require(join(DIST, 'shared/infrastructure/outbox/outbox.writer.js'));
  const cleanups = [];
  try {
    const { db, dataDir } = await scratchDatabase('webhooks-fairness-', cleanups);

    // Tenant A's receiver: reads the request, never answers.
    let hangingNow = 0;
    let hangingTotal = 0;
    const tarpit = createServer((req) => {
      hangingNow++;
      hangingTotal++;
      req.resume();
      req.socket.once('close', () => hangingNow--);
    });
    tarpit.keepAliveTimeout = 0;
    tarpit.requestTimeout = 0;
    tarpit.headersTimeout = 0;
    const tarpitUrl = await listen(tarpit, cleanups);

    // Tenant B's receiver: answers at once, records arrivals by the bench's object id.
    const arrivals = new Map();
    const good = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = now();
        const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.object.id;
        if (!arrivals.has(id)) arrivals.set(id, at);
        res.writeHead(200).end();
      });
    });
    const goodUrl = await listen(good, cleanups);

    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    const tenant = async (name) => {
      const id = `ten_${name}${randomBytes(4).toString('hex')}`;
      await pg.query(`INSERT INTO tenants (id, name) VALUES ($1, $2)`, [id, name]);
      return id;
    };
    let n = 0;
    const endpoint = (tenantId, url) =>
      pg.query(
        `INSERT INTO webhook_endpoints (tenant_id, id, url, events, status, secret, version, created_at, updated_at)
         VALUES ($1, $2, $3, '{*}', 'enabled', $4, 1, now(), now())`,
        [tenantId, `wh_fair${String(n++).padStart(20, '0')}`, url, `whsec_${randomBytes(32).toString('base64')}`],
      );
    const a = await tenant('attacker');
    const b = await tenant('victim');
    for (let i = 0; i < opts.hanging; i++) await endpoint(a, tarpitUrl(`/a${i}`));
    await endpoint(b, goodUrl('/b'));

    for (let i = 0; i < opts.instances; i++) {
      const port = await freePort();
      const logFile = join(dataDir, `service-${i}.log`);
      const child = spawnNode(
        [join(DIST, 'main.js')],
        { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...relayEnv() },
        logFile,
      );
      cleanups.push(() => stopChild(child));
      await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    }

    const writer = new OutboxWriter();
    const manager = { query: (sql, params) => pg.query(sql, params).then((r) => r.rows) };
    const event = (tenantId, id) => ({ type: 'invoice.updated', aggregateType: 'invoice', aggregateId: id, tenantId, occurredAt: new Date(), data: { object: { id } } });
    let queue = Promise.resolve();
    // One connection: commits are serialized, each returns its commit time.
    const commit = (tenantId, id) =>
      (queue = queue.then(async () => {
        await pg.query('BEGIN');
        await writer.write(manager, [event(tenantId, id)]);
        await pg.query('COMMIT');
        return now();
      }));

    // The attack runs for the whole measurement, at its own pace.
    let attacking = true;
    let attackEvents = 0;
    const attack = (async () => {
      const start = performance.now();
      while (attacking) {
        const due = start + (attackEvents * 1000) / opts['attack-rate'];
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await commit(a, `atk_${attackEvents++}`);
      }
    })();

    // Wait until A's receivers hold requests, then measure B.
    const attackStart = Date.now();
    while (hangingNow < Math.min(opts.hanging, 4) && Date.now() - attackStart < 30_000) await new Promise((r) => setTimeout(r, 50));
    const commits = new Map();
    const count = opts.rate * opts.seconds;
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      commits.set(`vic_${i}`, await commit(b, `vic_${i}`));
    }
    const deadline = Date.now() + 120_000;
    while (arrivals.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const inFlightAtEnd = hangingNow;
    attacking = false;
    await attack;

    const delays = [...commits.entries()].map(([id, at]) => (arrivals.has(id) ? arrivals.get(id) - at : Infinity)).sort((x, y) => x - y);
    // The slowest deliveries of B, with when (seconds into the measurement) their event was committed.
    const slowest = [...commits.entries()]
      .map(([id, at]) => ({ at_s: +((at - (performance.timeOrigin + start)) / 1000).toFixed(1), ms: arrivals.has(id) ? Math.round(arrivals.get(id) - at) : null }))
      .sort((x, y) => (y.ms ?? Infinity) - (x.ms ?? Infinity))
      .slice(0, 5);
    const result = {
      machine: { cpus: require('node:os').cpus().length, node: process.version },
      settings: { ...opts, ...relayEnv() },
      attacker: { endpoints: opts.hanging, events: attackEvents, requests_received: hangingTotal, requests_hanging_at_end: inFlightAtEnd },
      victim_delivery_ms: {
        events: count,
        delivered: arrivals.size,
        p50: +percentile(delays, 50).toFixed(1),
        p90: +percentile(delays, 90).toFixed(1),
        p99: +percentile(delays, 99).toFixed(1),
        max: +delays[delays.length - 1].toFixed(1),
        slowest,
      },
    };
    log(JSON.stringify(result, null, 2));
  } finally {
    while (cleanups.length) await cleanups.pop()().catch((e) => log(`cleanup: ${e.message}`));
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
