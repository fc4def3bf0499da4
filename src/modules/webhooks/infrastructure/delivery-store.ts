import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../../shared/domain/ids';
import { OUTBOX_CHANNEL } from '../../../shared/infrastructure/outbox/outbox.writer';
import { matchesEventFilter } from '../domain/event-types';
import { RelayDatabase } from './relay-database';
import { RELAY_SETTINGS, RelaySettings } from './relay-settings';

/** An attempt this instance holds the lease for, with everything needed to send it. */
export interface ClaimedDelivery {
  tenantId: string;
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** the number of this attempt (1 = first); with `owner` it identifies the lease */
  attempt: number;
  url: string;
  endpointEnabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  eventCreatedAt: Date;
  data: unknown;
}

export type DeliveryOutcome =
  | { kind: 'succeeded'; status: number }
  | { kind: 'retry'; status: number | null; error: string; delayMs: number }
  | { kind: 'failed'; status: number | null; error: string }
  /** 410 Gone: the delivery fails and the endpoint is disabled */
  | { kind: 'gone' }
  /** the endpoint was disabled after the delivery was queued: nothing was sent */
  | { kind: 'skipped'; error: string }
  /** this instance stopped mid-attempt: the delivery is handed back at once */
  | { kind: 'released'; error: string };

/** NOTIFY payload on the outbox channel for new deliveries (the OutboxWriter's own is empty). */
export const DELIVERIES_NOTICE = 'deliveries';

type DeliveryRow = [tenantId: string, id: string, endpointId: string, eventId: string, type: string];

const deliveryColumns = (rows: DeliveryRow[]) => [0, 1, 2, 3, 4].map((i) => rows.map((r) => r[i]));

/** INSERT of new deliveries (due now) from five text arrays bound from `$first` on (those of `x` meeting `where`). */
const INSERT_DELIVERIES = (first: number, where = 'true') => {
  const p = (i: number) => `$${first + i}::text[]`;
  return `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
    SELECT t, i, e, ev, ty, 'pending', now(), date_trunc('milliseconds', now()), date_trunc('milliseconds', now())
      FROM unnest(${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}) AS x(t, i, e, ev, ty)
     WHERE ${where}
    ON CONFLICT (tenant_id, endpoint_id, event_id) DO NOTHING
    RETURNING id`;
};

const ms = (n: number) => `make_interval(secs => ${Number(n) / 1000})`;

/** The settings of the fan-out's transaction for events with endpoints (see fanOut); the function has them too. */
const FAN_OUT_SETTINGS = { enable_seqscan: 'off', enable_bitmapscan: 'off', synchronous_commit: 'off', plan_cache_mode: 'force_generic_plan' } as const;

/** Owners heard from within `deadAfterMs`: only their leases are live (`$dead` is a number of ms). */
const ALIVE = (dead: string) => `SELECT owner, heartbeat_at FROM webhook_relay_instances WHERE heartbeat_at > now() - make_interval(secs => ${dead}::float8 / 1000)`;

/**
 * The relay's SQL. Work is claimed with FOR UPDATE SKIP LOCKED, so several instances share it
 * without waiting on each other, and leased (locked_by/locked_until) rather than held in an
 * open transaction, so no connection is pinned while a receiver takes its time. Every state
 * lives in the database: an instance that dies loses nothing but the lease, which expires.
 * These queries span tenants by nature (a relay serves all of them); every row they touch is
 * still addressed by its full (tenant_id, id) key.
 */
@Injectable()
export class DeliveryStore {
  constructor(
    private readonly db: RelayDatabase,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
  ) {}

  /**
   * Records that `owner` is alive (every WEBHOOK_RELAY_HEARTBEAT_MS). Its leases count as live
   * only while it keeps doing so. Rows of instances gone for a day are pruned on the way.
   */
  async heartbeat(owner: string): Promise<void> {
    await this.db.query(
      `WITH pruned AS (DELETE FROM webhook_relay_instances WHERE heartbeat_at < now() - interval '1 day' AND owner <> $1)
       INSERT INTO webhook_relay_instances (owner, heartbeat_at) VALUES ($1, now())
       ON CONFLICT (owner) DO UPDATE SET heartbeat_at = now()`,
      [owner],
    );
  }

  /** A stopping instance: its leases (all handed back by then) stop counting at once. */
  async forgetInstance(owner: string): Promise<void> {
    await this.db.query(`DELETE FROM webhook_relay_instances WHERE owner = $1`, [owner]);
  }

  /**
   * Turns a batch of unpublished outbox rows into one delivery per matching enabled endpoint
   * of the event's tenant and marks the rows published. A unique key on (tenant_id, endpoint_id,
   * event_id) keeps it idempotent.
   *
   * One round trip when the batch's tenants have no enabled endpoint (ADR 0050):
   * `webhook_outbox_fan_out` locks the batch, marks published the events of tenants without one,
   * and returns the batch with the others' endpoints. Only those others take a second step, a
   * transaction that marks them published and inserts their deliveries in one statement. They are
   * no longer locked by then, so a second instance may read them too: each event is marked by one
   * statement only (`published_at IS NULL`), and only the statement that marked it inserts its
   * deliveries.
   *
   * The function and the transaction use index scans only. The outbox is a queue: between two
   * autovacuums it grows from the few rows its statistics saw to thousands, and a plan made from
   * those statistics (cached by the prepared statement) reads the whole table, ~600 pages per pass,
   * where the indexes need a few. And a plain index scan in seq order, not a bitmap scan: published
   * rows stay in the partial index until vacuum, and only an index scan marks those entries dead as
   * it passes. And no wait for the WAL flush at commit (a write and an fsync per pass): a crash can
   * lose only whole passes, whose events are then unpublished again and fanned out once more — the
   * deliveries' unique key keeps that from doubling any. And generic plans: costed for ten-element
   * arrays, the prepared statements would otherwise be planned again on every pass.
   */
  async fanOut(batchSize: number): Promise<{ events: number; deliveries: number }> {
    const rows: { event_tenant_id: string; event_id: string; event_type: string; published: boolean; endpoint_id: string | null; filters: string[] | null }[] =
      await this.db.query(`SELECT * FROM webhook_outbox_fan_out($1)`, [batchSize]);
    const events = new Map(rows.map((r) => [`${r.event_tenant_id}/${r.event_id}`, r]));
    const left = [...events.values()].filter((r) => !r.published);
    if (left.length === 0) return { events: events.size, deliveries: 0 };
    const deliveries = rows
      .filter((r) => !r.published && r.endpoint_id !== null && matchesEventFilter(r.filters!, r.event_type))
      .map((r): DeliveryRow => [r.event_tenant_id, newId('whd'), r.endpoint_id!, r.event_id, r.event_type]);
    const inserted = await this.db.transaction(async (query) => {
      // Wakes the relays of other instances too: the new deliveries are theirs to share.
      const [{ inserted }] = await query(
        `WITH published AS (
           UPDATE outbox SET published_at = now()
            WHERE (tenant_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND published_at IS NULL RETURNING tenant_id, id),
         inserted AS (${INSERT_DELIVERIES(3, '(x.t, x.ev) IN (SELECT tenant_id, id FROM published)')})
         SELECT count(*)::int AS inserted, CASE WHEN count(*) > 0 THEN pg_notify('${OUTBOX_CHANNEL}', '${DELIVERIES_NOTICE}') END AS notified
           FROM inserted`,
        [left.map((e) => e.event_tenant_id), left.map((e) => e.event_id), ...deliveryColumns(deliveries)],
      );
      return inserted as number;
    }, FAN_OUT_SETTINGS);
    return { events: events.size, deliveries: inserted };
  }

  /** Inserts pending deliveries due now; rows already there (same endpoint and event) are skipped. */
  async insertDeliveries(m: EntityManager, rows: DeliveryRow[]): Promise<number> {
    const result: unknown[] = await m.query(INSERT_DELIVERIES(1), deliveryColumns(rows));
    return result.length;
  }

  /**
   * Leases up to `limit` due deliveries to `owner`, fairly: at most `endpointConcurrency` in
   * flight per endpoint and `tenantConcurrency` per tenant (counting every live instance's
   * leases; two claims racing may briefly exceed them), taken round-robin — each tenant's first
   * pick before any tenant's second, and within a tenant each endpoint's first before any
   * endpoint's second. So one tenant's (or endpoint's) receivers that never answer hold at most
   * their share of the slots, and everyone else's deliveries still go out. Claiming counts the attempt: an attempt whose sender dies is not repeated under
   * the same number, and one attempt is never sent by two instances (the row lock decides who
   * claims it; the lease outlives the request timeout). One statement, one round trip: for every
   * endpoint with a free share its earliest due rows are locked SKIP LOCKED (an index probe per
   * endpoint: the cost grows with the number of endpoints, never with a backlog), ranked and leased.
   *
   * A lease is live while it has not expired and its owner is alive (heard from within
   * WEBHOOK_RELAY_DEAD_AFTER_MS). A dead owner's leases count against no cap, and its
   * deliveries are claimed again as soon as their request could no longer be running
   * (WEBHOOK_TIMEOUT_MS after the claim, plus a second), rather than when the lease runs out.
   */
  async claim(owner: string, limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const { endpointConcurrency, tenantConcurrency, leaseMs, deadAfterMs } = this.settings;
    const rows: Record<string, any>[] = await this.db.query(
      `WITH alive AS (${ALIVE('$5')}),
       busy AS (
         SELECT tenant_id, endpoint_id, count(*)::int AS n FROM webhook_deliveries
          WHERE locked_until > now() AND locked_by IN (SELECT owner FROM alive) GROUP BY tenant_id, endpoint_id),
       busy_tenant AS (SELECT tenant_id, sum(n)::int AS n FROM busy GROUP BY tenant_id),
       open AS (
         SELECT e.tenant_id, e.id, LEAST($2 - coalesce(b.n, 0), $3 - coalesce(bt.n, 0), $1) AS free, $3 - coalesce(bt.n, 0) AS tenant_free
           FROM webhook_endpoints e
           LEFT JOIN busy b ON b.tenant_id = e.tenant_id AND b.endpoint_id = e.id
           LEFT JOIN busy_tenant bt ON bt.tenant_id = e.tenant_id
          WHERE coalesce(b.n, 0) < $2 AND coalesce(bt.n, 0) < $3),
       candidates AS (
         SELECT c.*, o.tenant_free FROM open o
          CROSS JOIN LATERAL (
            SELECT d.tenant_id, d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
             WHERE d.tenant_id = o.tenant_id AND d.endpoint_id = o.id
               AND d.status = 'pending' AND d.next_attempt_at <= now()
               AND (d.locked_until IS NULL OR d.locked_until <= now()
                    OR (d.last_attempt_at <= now() - make_interval(secs => $6::float8 / 1000) AND d.locked_by NOT IN (SELECT owner FROM alive)))
             ORDER BY d.next_attempt_at, d.id
             LIMIT o.free
             FOR UPDATE OF d SKIP LOCKED) c),
       by_endpoint AS (
         SELECT c.*, row_number() OVER (PARTITION BY c.tenant_id, c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS endpoint_turn
           FROM candidates c),
       by_tenant AS (
         SELECT c.*, row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.endpoint_turn, c.next_attempt_at, c.id) AS tenant_turn
           FROM by_endpoint c),
       picked AS (
         SELECT tenant_id, id, endpoint_id FROM by_tenant
          WHERE tenant_turn <= tenant_free
          ORDER BY tenant_turn, next_attempt_at, id
          LIMIT $1)
       -- every join by full key from the picked rows (the planner cannot estimate how many there are)
       UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1, locked_by = $4, locked_until = now() + ${ms(leaseMs)},
              last_attempt_at = now(), updated_at = now()
         FROM picked p, webhook_endpoints e, outbox o
        WHERE d.tenant_id = p.tenant_id AND d.id = p.id
          AND e.tenant_id = p.tenant_id AND e.id = p.endpoint_id
          AND o.tenant_id = d.tenant_id AND o.id = d.event_id
      RETURNING d.tenant_id, d.id, d.endpoint_id, d.event_id, d.attempts, e.url, e.status AS endpoint_status,
                e.secret, e.previous_secret, e.previous_secret_expires_at, o.type, o.created_at AS event_created_at, o.data`,
      [limit, endpointConcurrency, tenantConcurrency, owner, deadAfterMs, this.reclaimAfterMs],
    );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      id: r.id,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      eventType: r.type,
      attempt: r.attempts,
      url: r.url,
      endpointEnabled: r.endpoint_status === 'enabled',
      secret: r.secret,
      previousSecret: r.previous_secret,
      previousSecretExpiresAt: r.previous_secret_expires_at,
      eventCreatedAt: r.event_created_at,
      data: r.data,
    }));
  }

  /**
   * Records the results of several attempts in one statement (the relay batches whatever
   * finished while the previous write was running). Only the lease holder of that very attempt
   * may record it: a result whose lease was lost (this instance stalled past it) is dropped.
   * Returns the ids that were recorded.
   */
  async complete(owner: string, results: { delivery: ClaimedDelivery; outcome: DeliveryOutcome }[]): Promise<Set<string>> {
    const recorded = new Set<string>();
    const simple = results.filter((r) => r.outcome.kind !== 'gone');
    if (simple.length > 0) {
      const columns = simple.map(({ delivery: d, outcome: o }) => {
        const final = o.kind === 'succeeded' || o.kind === 'failed' || o.kind === 'skipped';
        return {
          tenant: d.tenantId,
          id: d.id,
          attempt: d.attempt,
          status: o.kind === 'succeeded' ? 'succeeded' : final ? 'failed' : 'pending',
          delay: final ? null : o.kind === 'retry' ? o.delayMs : 0,
          code: o.kind === 'succeeded' || o.kind === 'retry' || o.kind === 'failed' ? o.status : null,
          error: 'error' in o ? o.error : null,
          // an endpoint disabled since the claim: nothing was sent, so the attempt is not counted
          uncount: o.kind === 'skipped' ? 1 : 0,
        };
      });
      const col = <K extends keyof (typeof columns)[number]>(k: K) => columns.map((c) => c[k]);
      const rows: { id: string }[] = await this.db.query(
        `UPDATE webhook_deliveries d
            SET status = v.status,
                next_attempt_at = CASE WHEN v.delay IS NULL THEN NULL ELSE now() + make_interval(secs => v.delay / 1000) END,
                attempts = d.attempts - v.uncount,
                last_response_code = v.code, last_error = v.error,
                locked_by = NULL, locked_until = NULL, updated_at = now()
           FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::float8[], $6::int[], $7::text[], $8::int[])
                AS v(tenant_id, id, attempt, status, delay, code, error, uncount)
          WHERE d.tenant_id = v.tenant_id AND d.id = v.id AND d.locked_by = $9 AND d.attempts = v.attempt
        RETURNING d.id`,
        [col('tenant'), col('id'), col('attempt'), col('status'), col('delay'), col('code'), col('error'), col('uncount'), owner],
      );
      rows.forEach((r) => recorded.add(r.id));
    }
    for (const { delivery } of results.filter((r) => r.outcome.kind === 'gone')) {
      if (await this.completeGone(owner, delivery)) recorded.add(delivery.id);
    }
    return recorded;
  }

  /** 410 Gone: the delivery fails, the endpoint is disabled and its other pending deliveries fail with it. */
  private completeGone(owner: string, d: ClaimedDelivery): Promise<boolean> {
    return this.db.transaction(async (query) => {
      const rows = await query(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_response_code = 410,
                last_error = 'endpoint answered 410 Gone and was disabled', locked_by = NULL, locked_until = NULL, updated_at = now()
          WHERE tenant_id = $1 AND id = $2 AND locked_by = $3 AND attempts = $4 RETURNING id`,
        [d.tenantId, d.id, owner, d.attempt],
      );
      if (rows.length === 0) return false;
      await query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'gone', version = version + 1, updated_at = now()
          WHERE tenant_id = $1 AND id = $2 AND status = 'enabled'`,
        [d.tenantId, d.endpointId],
      );
      await query(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint disabled', updated_at = now()
          WHERE tenant_id = $1 AND endpoint_id = $2 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())`,
        [d.tenantId, d.endpointId],
      );
      return true;
    });
  }

  /**
   * What the relay's sleep depends on: `due`, the earliest next attempt of a pending delivery
   * nobody holds a live lease on (possibly past: due now, but held back by a cap), and `change`,
   * the next future moment a live lease stops counting: it expires, its owner's heartbeat goes
   * stale, or a dead owner's request can no longer be running. Null: nothing of the kind. And
   * `leased`: whether any delivery is under a live lease (an unexpired one, whoever its owner) —
   * with `due` null, none is pending at all.
   */
  async nextDueAt(): Promise<{ due: Date | null; change: Date | null; leased: boolean }> {
    const [row] = await this.db.query(
      `WITH alive AS (${ALIVE('$1')}),
       leases AS (
         SELECT d.locked_by, min(d.locked_until) AS until, min(d.last_attempt_at) AS first_claim FROM webhook_deliveries d
          WHERE d.locked_until > now() GROUP BY d.locked_by)
       SELECT
         (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND (locked_until IS NULL OR locked_until <= now())) AS due,
         (SELECT min(m) FROM (
            SELECT CASE WHEN a.owner IS NULL THEN LEAST(l.until, l.first_claim + make_interval(secs => $2::float8 / 1000))
                        ELSE LEAST(l.until, a.heartbeat_at + make_interval(secs => $1::float8 / 1000)) END AS m
              FROM leases l LEFT JOIN alive a ON a.owner = l.locked_by) x WHERE m > now()) AS change,
         EXISTS (SELECT FROM leases) AS leased`,
      [this.settings.deadAfterMs, this.reclaimAfterMs],
    );
    return { due: row?.due ?? null, change: row?.change ?? null, leased: row?.leased ?? true };
  }

  /** A dead owner's attempt cannot still be talking to its receiver after this long. */
  private get reclaimAfterMs(): number {
    return this.settings.timeoutMs + 1_000;
  }
}
