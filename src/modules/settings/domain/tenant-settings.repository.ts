import { TenantSettings } from './tenant-settings';

/** Where tenants' settings are kept. A tenant without a row has the defaults. */
export abstract class TenantSettingsRepository {
  /** The tenant's settings (defaults when it never changed them); NotFoundError for an unknown tenant. */
  abstract find(tenantId: string): Promise<TenantSettings>;
  /** The same, with the tenant's settings row locked until the transaction ends (concurrent PATCHes queue). */
  abstract findForUpdate(tenantId: string): Promise<TenantSettings>;
  /** Stores them and tells every instance of the service to forget its cached copy, at commit. */
  abstract save(tenantId: string, settings: TenantSettings): Promise<void>;
  /** Every time zone some tenant uses (UTC included: the default). */
  abstract timeZonesInUse(): Promise<string[]>;
}
