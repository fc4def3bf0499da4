import { TenantSettings } from './tenant-settings';

/** Where tenants' settings are kept. A tenant without a row has the defaults. */
export abstract class TenantSettingsRepository {
  /** The tenant's settings (defaults when it never changed them); NotFoundError for an unknown tenant. */
  abstract find(tenantId: string): Promise<TenantSettings>;
  /** The same, with the tenant's settings row locked until the transaction ends (concurrent PATCHes queue). */
  abstract findForUpdate(tenantId: string): Promise<TenantSettings>;
  /** Stores them and tells every instance of the service to forget its cached copy, at commit. */
  abstract save(tenantId: string, settings: TenantSettings): Promise<void>;
  /**
   * Calls `listener` in this process once a save has committed. NOTIFY tells every instance, but
   * asynchronously: without this, the instance that made a change could answer the client's next
   * request from its cache before its own notification arrived.
   */
  abstract onCommittedSave(listener: (tenantId: string) => void): void;
  /** Every time zone some tenant uses (UTC included: the default). */
  abstract timeZonesInUse(): Promise<string[]>;
}
