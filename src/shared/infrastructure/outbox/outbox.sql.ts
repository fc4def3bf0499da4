import { DomainEvent } from '../../domain/aggregate-root';
import { newId } from '../../domain/ids';

/*
 * The outbox's statements, without the framework around them (the raw-SQL baseline of the bench
 * builds its statements with these too, so both send the same texts).
 */

export const OUTBOX_CHANNEL = 'outbox';

/**
 * The outbox rows of OUTBOX_INSERT_SQL's parameters: the columns as arrays, zipped in array order (so
 * `seq` follows the order the events happened), the events' data as the elements of one JSON array
 * ($6, ADR 0053) — written out by one JSON.stringify, not a JSON text per event escaped again into an
 * array literal; PostgreSQL parses it once and stores the same jsonb values. Events of a tenant
 * without an enabled webhook endpoint are written published (`outbox_published_at`, ADR 0057):
 * nothing is left for the relay to mark. Asked once per statement for the first event's tenant
 * (an init plan), per row for any other.
 */
const OUTBOX_ROWS = `INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at, published_at)
         SELECT r.*, CASE WHEN r.tenant_id = ($1::text[])[1] THEN (SELECT outbox_published_at(($1::text[])[1])) ELSE outbox_published_at(r.tenant_id) END
           FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),
                           jsonb_array_elements($6::jsonb), unnest($7::timestamptz[])) AS r (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)`;

/** The outbox rows as a CTE, each answering whether it was left to the relay. */
const WRITTEN = `written AS (
         ${OUTBOX_ROWS}
         RETURNING published_at IS NULL AS unpublished)`;

/**
 * The relay is woken only for events left to it: none when every event was written published
 * (ADR 0057), so a tenant without webhooks makes no NOTIFY (its commit takes no lock of the
 * notification queue, and no pass follows). Called once at most (a scalar subquery, LIMIT 1).
 */
const NOTIFY_UNPUBLISHED = `(SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM written WHERE unpublished LIMIT 1)`;

/**
 * Insert and notify in one round trip (a data-modifying CTE always runs to completion). One text
 * whatever the number of events, so the unit of work runs it as a prepared statement, parsed and
 * planned once per connection instead of once per transaction.
 */
export const OUTBOX_INSERT_SQL = `WITH ${WRITTEN}
       SELECT ${NOTIFY_UNPUBLISHED} AS notified`;

/** The parameters of OUTBOX_INSERT_SQL for these events (each gets a new event id). */
export function outboxInsertParams(events: readonly DomainEvent[]): unknown[] {
  return [
    events.map((e) => e.tenantId),
    events.map(() => newId('evt')),
    events.map((e) => e.type),
    events.map((e) => e.aggregateType),
    events.map((e) => e.aggregateId),
    outboxData(events),
    events.map((e) => e.occurredAt),
  ];
}

/**
 * The events' data as one JSON array (the outbox's $6). An event without data (undefined, which a
 * JSON array would hold as `null`) is refused here, as the column's NOT NULL refused it before.
 */
function outboxData(events: readonly DomainEvent[]): string {
  for (const e of events) {
    if (e.data === undefined) throw new Error(`event ${e.type} of ${e.aggregateType} ${e.aggregateId} has no data`);
  }
  return JSON.stringify(events.map((e) => e.data));
}

/**
 * A write the unit of work sends together with other writes in one statement (UnitOfWork.writeBehind,
 * UnitOfWork.writeAtCommit): one data-modifying statement (INSERT, UPDATE; with `RETURNING` when
 * `written` is given) whose `$n` parameters are `params` (it must have no `$` elsewhere, e.g. in
 * literals: the numbers are shifted when it is combined) and no WITH of its own (a data-modifying
 * CTE must be at the top level). `written` is told how many rows it returned and may throw to roll
 * the transaction back; `failed` may turn the error of the statement it went out in into the one
 * its caller would have raised had it been sent alone (undefined: not its error).
 */
export interface CommitWrite {
  sql: string;
  params: unknown[];
  written?: (rows: number) => void;
  failed?: (error: unknown) => unknown;
}

/**
 * The outbox insert and the writes as one statement: each a data-modifying CTE (every one runs to
 * completion, referenced or not; none sees another's rows, and every AFTER trigger and key check
 * of them runs at the statement's end), the outbox's parameters first, then each write's,
 * renumbered. The rows each write with `written` returned are counted in the answer (`w<i>`).
 * One text per combination of writes, so it stays a prepared statement.
 */
export function combinedOutboxStatement(events: readonly DomainEvent[], writes: readonly CommitWrite[]): { sql: string; params: unknown[] } {
  const params: unknown[] = events.length > 0 ? outboxInsertParams(events) : [];
  const ctes: string[] = [];
  const counts: string[] = [];
  writes.forEach((w, i) => {
    const offset = params.length;
    ctes.push(`w${i} AS (${w.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`);
    if (w.written) counts.push(`(SELECT count(*) FROM w${i})::int AS w${i}`);
    params.push(...w.params);
  });
  if (events.length > 0) {
    ctes.unshift(WRITTEN);
    counts.unshift(`${NOTIFY_UNPUBLISHED} AS notified`);
  }
  if (counts.length === 0) counts.push('1 AS written');
  return { sql: `WITH ${ctes.join(', ')} SELECT ${counts.join(', ')}`, params };
}
