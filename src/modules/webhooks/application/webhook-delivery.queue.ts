import { DeliveryView } from './webhook.views';

export interface DirectEvent {
  tenantId: string;
  type: string;
  aggregateType: string;
  aggregateId: string;
  data: { object: Record<string, unknown> };
  occurredAt: Date;
}

/** Port: queues an event for one endpoint only, past the subscription filters (test pings). */
export abstract class WebhookDeliveryQueue {
  abstract enqueueForEndpoint(endpointId: string, event: DirectEvent): Promise<DeliveryView>;
}
