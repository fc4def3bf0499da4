import { WebhookEndpoint } from './webhook-endpoint.aggregate';

/** Port for endpoints. Every method takes the tenant: another tenant's endpoint is never found. */
export abstract class WebhookEndpointRepository {
  /**
   * How many endpoints the tenant has. Holds a per-tenant lock until the transaction ends, so
   * that concurrent creations count one after another and none slips past the limit.
   */
  abstract countForCreation(tenantId: string): Promise<number>;
  abstract findByIdForUpdate(tenantId: string, id: string): Promise<WebhookEndpoint | null>;
  /** Inserts or updates (checking and bumping `version`). */
  abstract save(endpoint: WebhookEndpoint): Promise<void>;
  abstract delete(tenantId: string, id: string): Promise<boolean>;
  /** Pending deliveries of a disabled endpoint are failed, not kept for a later re-enable. */
  abstract failPendingDeliveries(tenantId: string, endpointId: string, reason: string): Promise<void>;
}
