import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../../shared/domain/ids';
import { OUTBOX_CHANNEL } from '../../../shared/infrastructure/outbox/outbox.writer';
import { matchesEventFilter } from '../domain/event-types';

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

const ms = (n: number) => `make_interval(secs => ${Number(n) / 1000})`;

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
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Turns a batch of unpublished outbox rows into one delivery per matching enabled endpoint
   * of the event's tenant and marks the rows published, in one transaction. A unique key on
   * (tenant_id, endpoint_id, event_id) keeps it idempotent.
   */
  async fanOut(batchSize: number): Promise<{ events: number; deliveries: number }> {
    return this.dataSource.transaction(async (m) => {
      const events: { tenant_id: string; id: string; type: string }[] = await m.query(
        `SELECT tenant_id, id, type FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batchSize],
      );
      if (events.length === 0) return { events: 0, deliveries: 0 };
      const tenants = [...new Set(events.map((e) => e.tenant_id))];
      const endpoints: { tenant_id: string; id: string; events: string[] }[] = await m.query(
        `SELECT tenant_id, id, events FROM webhook_endpoints WHERE tenant_id = ANY($1) AND status = 'enabled'`,
        [tenants],
      );
      const rows: [string, string, string, string, string][] = [];
      for (const event of events) {
        for (const endpoint of endpoints) {
          if (endpoint.tenant_id === event.tenant_id && matchesEventFilter(endpoint.events, event.type)) {
            rows.push([event.tenant_id, newId('whd'), endpoint.id, event.id, event.type]);
          }
        }
      }
      let inserted = 0;
      if (rows.length > 0) inserted = await this.insertDeliveries(m, rows);
      await m.query(
        `UPDATE outbox SET published_at = now()
          WHERE (tenant_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [events.map((e) => e.tenant_id), events.map((e) => e.id)],
      );
      // Wakes the relays of other instances too: the new deliveries are theirs to share.
      if (inserted > 0) await m.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', 'deliveries')`);
      return { events: events.length, deliveries: inserted };
    });
  }

  /** Inserts pending deliveries due now; rows already there (same endpoint and event) are skipped. */
  async insertDeliveries(m: EntityManager, rows: [tenantId: string, id: string, endpointId: string, eventId: string, type: string][]): Promise<number> {
    const col = (i: number) => rows.map((r) => r[i]);
    const result: unknown[] = await m.query(
      `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
       SELECT t, i, e, ev, ty, 'pending', now(), date_trunc('milliseconds', now()), date_trunc('milliseconds', now())
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(t, i, e, ev, ty)
       ON CONFLICT (tenant_id, endpoint_id, event_id) DO NOTHING
       RETURNING id`,
      [col(0), col(1), col(2), col(3), col(4)],
    );
    return result.length;
  }

  /**
   * Leases up to `limit` due deliveries to `owner`, at most `perEndpoint` in flight per
   * endpoint (counting every instance's live leases), so a slow endpoint's backlog cannot fill
   * all slots. Claiming counts the attempt: an attempt whose sender dies is not repeated under
   * the same number, and one attempt is never sent by two instances (the row lock decides who
   * claims it; the lease outlives the request timeout).
   */
  async claim(owner: string, limit: number, perEndpoint: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return this.dataSource.transaction(async (m) => {
      const busy: { tenant_id: string; endpoint_id: string; n: number }[] = await m.query(
        `SELECT tenant_id, endpoint_id, count(*)::int AS n FROM webhook_deliveries
          WHERE locked_until > now() GROUP BY tenant_id, endpoint_id`,
      );
      const inFlight = new Map(busy.map((b) => [`${b.tenant_id}/${b.endpoint_id}`, b.n]));
      const full = busy.filter((b) => b.n >= perEndpoint);
      const candidates: { tenant_id: string; id: string; endpoint_id: string }[] = await m.query(
        `SELECT tenant_id, id, endpoint_id FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
            AND (locked_until IS NULL OR locked_until <= now())
            AND (tenant_id, endpoint_id) NOT IN (SELECT * FROM unnest($1::text[], $2::text[]))
          ORDER BY next_attempt_at, id
          LIMIT $3
          FOR UPDATE SKIP LOCKED`,
        [full.map((b) => b.tenant_id), full.map((b) => b.endpoint_id), Math.min(limit * 4, 1000)],
      );
      const picked: typeof candidates = [];
      for (const c of candidates) {
        if (picked.length >= limit) break;
        const key = `${c.tenant_id}/${c.endpoint_id}`;
        const n = inFlight.get(key) ?? 0;
        if (n >= perEndpoint) continue;
        inFlight.set(key, n + 1);
        picked.push(c);
      }
      if (picked.length === 0) return [];
      // UPDATE ... RETURNING comes back from TypeORM as [rows, affected].
      const [rows]: [Record<string, any>[], number] = await m.query(
        `UPDATE webhook_deliveries d
            SET attempts = d.attempts + 1, locked_by = $3, locked_until = now() + ${ms(leaseMs)},
                last_attempt_at = now(), updated_at = now()
           FROM webhook_endpoints e, outbox o
          WHERE (d.tenant_id, d.id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
            AND e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
            AND o.tenant_id = d.tenant_id AND o.id = d.event_id
        RETURNING d.tenant_id, d.id, d.endpoint_id, d.event_id, d.attempts, e.url, e.status AS endpoint_status,
                  e.secret, e.previous_secret, e.previous_secret_expires_at, o.type, o.created_at AS event_created_at, o.data`,
        [picked.map((p) => p.tenant_id), picked.map((p) => p.id), owner],
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
    });
  }

  /**
   * Records an attempt's result. Only the lease holder of that very attempt may: if the lease
   * was lost (this instance stalled past it), the result is dropped and false returned.
   */
  async complete(owner: string, d: ClaimedDelivery, outcome: DeliveryOutcome): Promise<boolean> {
    const lease = [d.tenantId, d.id, owner, d.attempt];
    const where = `WHERE tenant_id = $1 AND id = $2 AND locked_by = $3 AND attempts = $4`;
    const release = `locked_by = NULL, locked_until = NULL, updated_at = now()`;
    switch (outcome.kind) {
      case 'succeeded':
        return this.affected(
          `UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, last_response_code = $5, last_error = NULL, ${release} ${where}`,
          [...lease, outcome.status],
        );
      case 'retry':
        return this.affected(
          `UPDATE webhook_deliveries SET next_attempt_at = now() + ${ms(outcome.delayMs)}, last_response_code = $5, last_error = $6, ${release} ${where}`,
          [...lease, outcome.status, outcome.error],
        );
      case 'failed':
        return this.affected(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_response_code = $5, last_error = $6, ${release} ${where}`,
          [...lease, outcome.status, outcome.error],
        );
      case 'skipped':
        return this.affected(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, attempts = attempts - 1, last_error = $5, ${release} ${where}`,
          [...lease, outcome.error],
        );
      case 'released':
        return this.affected(`UPDATE webhook_deliveries SET next_attempt_at = now(), last_error = $5, ${release} ${where}`, [
          ...lease,
          outcome.error,
        ]);
      case 'gone':
        return this.dataSource.transaction(async (m) => {
          const [rows] = await m.query(
            `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_response_code = 410,
                    last_error = 'endpoint answered 410 Gone and was disabled', ${release} ${where} RETURNING id`,
            lease,
          );
          if (rows.length === 0) return false;
          await m.query(
            `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'gone', version = version + 1, updated_at = now()
              WHERE tenant_id = $1 AND id = $2 AND status = 'enabled'`,
            [d.tenantId, d.endpointId],
          );
          await m.query(
            `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint disabled', updated_at = now()
              WHERE tenant_id = $1 AND endpoint_id = $2 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())`,
            [d.tenantId, d.endpointId],
          );
          return true;
        });
    }
  }

  /** When the earliest pending delivery falls due or a lease expires (null: nothing pending). */
  async nextDueAt(): Promise<Date | null> {
    const [row] = await this.dataSource.query(
      `SELECT LEAST(
         (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND locked_until IS NULL),
         (SELECT min(locked_until) FROM webhook_deliveries WHERE locked_until IS NOT NULL)) AS at`,
    );
    return row?.at ?? null;
  }

  private async affected(sql: string, params: unknown[]): Promise<boolean> {
    const [rows] = await this.dataSource.query(`${sql} RETURNING id`, params);
    return rows.length > 0;
  }
}
