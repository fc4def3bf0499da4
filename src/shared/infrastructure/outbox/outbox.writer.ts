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
 * A write the unit of work sends with its transaction's last statement (UnitOfWork.writeAtCommit):
 * one data-modifying statement (INSERT or UPDATE … RETURNING) whose `$n` parameters are `params`
 * (it must have no `$` elsewhere, e.g. in literals: the numbers are shifted when it is combined);
 * `written` is told how many rows it returned and may throw to roll the transaction back.
 */
export interface CommitWrite {
  sql: string;
  params: unknown[];
  written?: (rows: number) => void;
}

/**
 * The outbox insert and the transaction's commit writes as one statement: each a data-modifying
 * CTE (every one runs to completion, referenced or not), the outbox's parameters first, then each
 * write's, renumbered. One text per combination of writes, so it stays a prepared statement.
 */
export function combinedOutboxStatement(events: readonly DomainEvent[], writes: readonly CommitWrite[]): { sql: string; params: unknown[] } {
  const params: unknown[] = events.length > 0 ? outboxInsertParams(events) : [];
  const ctes: string[] = [];
  const counts: string[] = [];
  writes.forEach((w, i) => {
    const offset = params.length;
    ctes.push(`w${i} AS (${w.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`);
    counts.push(`(SELECT count(*) FROM w${i})::int AS w${i}`);
    params.push(...w.params);
  });
  if (events.length > 0) {
    ctes.unshift(`written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[])
         RETURNING 1)`);
    counts.unshift(`pg_notify('${OUTBOX_CHANNEL}', '') AS notified`);
  }
  return { sql: `WITH ${ctes.join(', ')} SELECT ${counts.join(', ')}`, params };
}

/**
 * Appends events to the transactional outbox. The rows commit or roll back with the change
 * that produced them; `pg_notify` is delivered only on commit and wakes the relay.
 */
@Injectable()
export class OutboxWriter {
  /**
   * `target`: a manager, or the unit of work's runner of prepared statements on its transaction.
   * `writes`: the transaction's commit writes, sent in the same statement (one round trip).
   */
  async write(
    target: EntityManager | ((sql: string, params: unknown[]) => Promise<unknown>),
    events: DomainEvent[],
    writes: readonly CommitWrite[] = [],
  ): Promise<void> {
    if (events.length === 0 && writes.length === 0) return;
    const run = (sql: string, params: unknown[]) => (typeof target === 'function' ? target(sql, params) : target.query(sql, params));
    if (writes.length === 0) {
      await run(OUTBOX_INSERT_SQL, outboxInsertParams(events));
      return;
    }
    const { sql, params } = combinedOutboxStatement(events, writes);
    const [row] = (await run(sql, params)) as Record<string, number>[];
    writes.forEach((w, i) => w.written?.(row[`w${i}`]));
  }
}
