#!/usr/bin/env node
'use strict';
/**
 * Webhook relay benchmark: `npm run build && node bench/webhooks-throughput.js [--events 2000]
 * [--endpoints 8] [--instances 1] [--rate 100] [--seconds 10]`.
 *
 * Starts an embedded PostgreSQL of its own (a temp dir), the compiled service (dist/main.js)
 * as child process(es) and a plain node:http receiver on loopback that answers 200 at once.
 * Events are written with the service's own OutboxWriter, in transactions, like an aggregate
 * save would.
 *  1. throughput: `--events` invoice events, each going to `--endpoints` endpoints, written as
 *     fast as possible (100 per transaction); deliveries per second from the first commit to
 *     the last delivery received.
 *  2. latency: one event per transaction at `--rate` per second for `--seconds`, to one
 *     endpoint; commit-to-delivery delay (commit returned -> request received), p50/p99/max.
 * WEBHOOK_* variables (e.g. WEBHOOK_RELAY_CONCURRENCY) are passed on to the service. Plain
 * CommonJS on the compiled dist/, like bench/run.js.
 */
const { createServer } = require('node:http');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { Webhook } = require('standardwebhooks');
const { numberOptions } = require('./lib/args');
const { freePort, spawnNode, waitForHttp, stopChild } = require('./lib/processes');
const { DIST, scratchDatabase } = require('./lib/scratch');

const log = (msg) => process.stdout.write(`${msg}\n`);

/** WEBHOOK_* tuning variables given to this script are passed on to the service. */
function relayEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WEBHOOK_')));
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const opts = numberOptions({ events: 2000, endpoints: 8, instances: 1, rate: 100, seconds: 10 });
  const { OutboxWriter } = require(join(DIST, 'shared/infrastructure/outbox/outbox.writer.js'));
  const cleanups = [];
  try {
    const { db, dataDir } = await scratchDatabase('webhooks-bench-', cleanups);

    // The receiver: records when each delivery arrived, by the bench's own object id.
    const arrivals = new Map();
    const samples = [];
    let received = 0;
    let onReceive = () => undefined;
    const receiver = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = performance.timeOrigin + performance.now();
        const body = Buffer.concat(chunks).toString('utf8');
        const event = JSON.parse(body);
        received++;
        const key = `${req.url} ${event.data.object.id}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
        if (samples.length < 20) samples.push({ body, headers: req.headers, path: req.url });
        res.writeHead(200).end();
        onReceive();
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => (receiver.closeAllConnections(), receiver.close(r))));
    const receiverUrl = (path) => `http://127.0.0.1:${receiver.address().port}${path}`;
    const waitForReceived = (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (received >= n) return resolve();
        const timer = setTimeout(() => reject(new Error(`only ${received} of ${n} deliveries after ${timeoutMs} ms`)), timeoutMs);
        onReceive = () => {
          if (received >= n) {
            clearTimeout(timer);
            resolve();
          }
        };
      });

    // A tenant with its endpoints, written straight to the tables (the API is not what is measured).
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    cleanups.push(() => pg.end());
    const tenantId = `ten_bench${randomBytes(4).toString('hex')}`;
    await pg.query(`INSERT INTO tenants (id, name) VALUES ($1, 'bench')`, [tenantId]);
    const secrets = {};
    const endpoint = async (n, path, events) => {
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      secrets[path] = secret;
      await pg.query(
        `INSERT INTO webhook_endpoints (tenant_id, id, url, events, status, secret, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'enabled', $5, 1, now(), now())`,
        [tenantId, `wh_bench${String(n).padStart(19, '0')}`, receiverUrl(path), events, secret],
      );
    };
    for (let i = 0; i < opts.endpoints; i++) await endpoint(i, `/t${i}`, ['invoice.*']);
    await endpoint(opts.endpoints, '/latency', ['payment.*']);

    // The service.
    const children = [];
    for (let i = 0; i < opts.instances; i++) {
      const port = await freePort();
      const logFile = join(dataDir, `service-${i}.log`);
      const child = spawnNode(
        [join(DIST, 'main.js')],
        { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production', JWT_SECRET: randomBytes(48).toString('base64url'), ...relayEnv() },
        logFile,
      );
      children.push(child);
      cleanups.push(() => stopChild(child));
      await waitForHttp(`http://127.0.0.1:${port}/health`, child, 60_000, logFile);
    }

    const writer = new OutboxWriter();
    const manager = { query: (sql, params) => pg.query(sql, params).then((r) => r.rows) };
    const event = (type, id) => ({ type, aggregateType: type.split('.')[0], aggregateId: id, tenantId, occurredAt: new Date(), data: { object: { id, amount_due: 12550 } } });
    const commit = async (events) => {
      await pg.query('BEGIN');
      await writer.write(manager, events);
      await pg.query('COMMIT');
      return performance.timeOrigin + performance.now();
    };

    // Warm-up (connections, JIT).
    await commit([event('payment.created', 'warmup')]);
    await waitForReceived(1, 10_000);

    // 1. Throughput.
    const total = opts.events * opts.endpoints;
    const before = received;
    const t0 = performance.timeOrigin + performance.now();
    for (let i = 0; i < opts.events; i += 100) {
      await commit(Array.from({ length: Math.min(100, opts.events - i) }, (_, j) => event('invoice.updated', `inv_${i + j}`)));
    }
    const tWritten = performance.timeOrigin + performance.now();
    await waitForReceived(before + total, 300_000);
    const tDone = Math.max(...[...arrivals.entries()].filter(([k]) => k.startsWith('/t')).map(([, at]) => at));
    const seconds = (tDone - t0) / 1000;
    const requestsReceived = received - before;
    // The results are written in batches just after the responses: wait for the last ones.
    let succeeded = 0;
    for (let i = 0; i < 100 && succeeded < total; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      [{ n: succeeded }] = (
        await pg.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'succeeded' AND event_type = 'invoice.updated'`, [tenantId])
      ).rows;
    }

    // 2. Commit-to-delivery latency at a steady rate.
    const commits = new Map();
    const count = opts.rate * opts.seconds;
    const start = performance.now();
    const latencyBefore = received;
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      commits.set(`lat_${i}`, await commit([event('payment.created', `lat_${i}`)]));
    }
    await waitForReceived(latencyBefore + count, 60_000);
    const delays = [...commits.entries()].map(([id, at]) => arrivals.get(`/latency ${id}`) - at).sort((a, b) => a - b);

    // Where the time goes, from the rows: event written -> delivery created (fan-out) -> attempt claimed.
    const { rows: stages } = await pg.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - o.created_at)) * 1000 AS fanout_p50,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.last_attempt_at - d.created_at)) * 1000 AS claim_p50
         FROM webhook_deliveries d JOIN outbox o ON o.tenant_id = d.tenant_id AND o.id = d.event_id
        WHERE d.tenant_id = $1 AND d.event_type = 'payment.created'`,
      [tenantId],
    );

    // Every sampled delivery verifies with the standardwebhooks library.
    for (const s of samples) new Webhook(secrets[s.path]).verify(s.body, s.headers);

    const result = {
      machine: { cpus: require('node:os').cpus().length, node: process.version },
      settings: { ...opts, ...relayEnv() },
      throughput: {
        deliveries: total,
        succeeded_in_db: succeeded,
        requests_received: requestsReceived,
        write_seconds: +((tWritten - t0) / 1000).toFixed(2),
        seconds: +seconds.toFixed(2),
        deliveries_per_second: Math.round(total / seconds),
      },
      latency_ms: {
        events: count,
        rate_per_second: opts.rate,
        p50: +percentile(delays, 50).toFixed(1),
        p90: +percentile(delays, 90).toFixed(1),
        p99: +percentile(delays, 99).toFixed(1),
        max: +delays[delays.length - 1].toFixed(1),
        write_to_fanout_p50: +Number(stages[0].fanout_p50).toFixed(1),
        fanout_to_claim_p50: +Number(stages[0].claim_p50).toFixed(1),
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
