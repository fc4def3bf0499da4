import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { newId } from '../../domain/ids';

export const OUTBOX_CHANNEL = 'outbox';

/**
 * Appends events to the transactional outbox. The rows commit or roll back with the change
 * that produced them; `pg_notify` is delivered only on commit and wakes the relay.
 */
@Injectable()
export class OutboxWriter {
  async write(manager: EntityManager, events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const values: unknown[] = [];
    const rows = events.map((e, i) => {
      const o = i * 7;
      values.push(e.tenantId, newId('evt'), e.type, e.aggregateType, e.aggregateId, JSON.stringify(e.data), e.occurredAt);
      return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}::jsonb, $${o + 7})`;
    });
    // Insert and notify in one round trip (a data-modifying CTE always runs to completion).
    await manager.query(
      `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at) VALUES ${rows.join(', ')}
         RETURNING 1)
       SELECT pg_notify('${OUTBOX_CHANNEL}', '')`,
      values,
    );
  }
}
