import { Page } from '../../../shared/domain/pagination';
import { DeliveryView, EndpointView } from './webhook.views';

/** Keyset list parameters as they arrive (contract §5); `created_at` is the one sort. */
export interface ListParams {
  limit?: number;
  cursor?: string;
  sort?: string;
}

export interface DeliveryFilters {
  statuses: string[] | null;
  eventType: string | null;
  eventId: string | null;
}

/** Port: webhook endpoints and deliveries read straight into their response shapes. */
export abstract class WebhookReadModel {
  /** null when the tenant has no such endpoint */
  abstract endpoint(tenantId: string, id: string): Promise<EndpointView | null>;
  abstract endpoints(tenantId: string, status: string | undefined, list: ListParams): Promise<Page<EndpointView>>;
  /** null when the tenant has no such endpoint */
  abstract deliveries(tenantId: string, endpointId: string, filters: DeliveryFilters, list: ListParams): Promise<Page<DeliveryView> | null>;
}
