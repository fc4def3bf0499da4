import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { newId } from '../../domain/ids';
import { jsonArrayLiteral } from '../database/pg-array';

export const OUTBOX_CHANNEL = 'outbox';

/**
 * Insert and notify in one round trip (a data-modifying CTE always runs to completion). One text
 * whatever the number of events — their columns as arrays, inserted in array order, so `seq` follows
 * the order they happened — so the unit of work runs it as a prepared statement, parsed and planned
 * once per connection instead of once per transaction.
 */
export const OUTBOX_INSERT_SQL = `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[])
         RETURNING 1)
       SELECT pg_notify('${OUTBOX_CHANNEL}', '')`;

/** The parameters of OUTBOX_INSERT_SQL for these events (each gets a new event id). */
function outboxInsertParams(events: readonly DomainEvent[]): unknown[] {
  return [
    events.map((e) => e.tenantId),
    events.map(() => newId('evt')),
    events.map((e) => e.type),
    events.map((e) => e.aggregateType),
    events.map((e) => e.aggregateId),
    jsonArrayLiteral(events.map((e) => e.data)),
    events.map((e) => e.occurredAt),
  ];
}

/**
 * Appends events to the transactional outbox. The rows commit or roll back with the change
 * that produced them; `pg_notify` is delivered only on commit and wakes the relay.
 */
@Injectable()
export class OutboxWriter {
  /** `target`: a manager, or the unit of work's runner of prepared statements on its transaction. */
  async write(target: EntityManager | ((sql: string, params: unknown[]) => Promise<unknown>), events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const params = outboxInsertParams(events);
    await (typeof target === 'function' ? target(OUTBOX_INSERT_SQL, params) : target.query(OUTBOX_INSERT_SQL, params));
  }
}
