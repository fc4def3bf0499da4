import { Injectable } from '@nestjs/common';
import { newId } from '../../../shared/domain/ids';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { OUTBOX_CHANNEL } from '../../../shared/infrastructure/outbox/outbox.writer';
import { DirectEvent, WebhookDeliveryQueue } from '../application/webhook-delivery.queue';
import { DELIVERY_COLUMNS, DeliveryView, deliveryViewFromRow } from '../application/webhook.views';
import { DELIVERIES_NOTICE, DeliveryStore } from './delivery-store';

/**
 * Writes an event to the outbox already marked published (the fan-out must not offer it to
 * other endpoints) together with its one delivery, in the caller's transaction; the relay
 * then sends it like any other.
 */
@Injectable()
export class TypeormWebhookDeliveryQueue extends WebhookDeliveryQueue {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DeliveryStore,
  ) {
    super();
  }

  async enqueueForEndpoint(endpointId: string, event: DirectEvent): Promise<DeliveryView> {
    const eventId = newId('evt');
    const deliveryId = newId('whd');
    await this.uow.query(
      `INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at, published_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, now())`,
      [event.tenantId, eventId, event.type, event.aggregateType, event.aggregateId, JSON.stringify(event.data), event.occurredAt],
    );
    await this.store.insertDeliveries(this.uow.manager(), [[event.tenantId, deliveryId, endpointId, eventId, event.type]]);
    await this.uow.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '${DELIVERIES_NOTICE}')`);
    const [row] = await this.uow.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2`, [
      event.tenantId,
      deliveryId,
    ]);
    return deliveryViewFromRow(row);
  }
}
