import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { PgListener, PgNotifications } from '../../../shared/infrastructure/database/pg-listener';
import { TenantSettings } from '../domain/tenant-settings';
import { TenantSettingsReader } from '../domain/tenant-settings.reader';
import { TenantSettingsRepository } from '../domain/tenant-settings.repository';
import { SETTINGS_CHANNEL } from './typeorm-tenant-settings.repository';

const MAX_ENTRIES = 10_000;

/**
 * Tenants' settings kept in this instance's memory, so that "today" (every request that shows
 * or writes a business date) costs no query. Correct across instances: a save notifies
 * SETTINGS_CHANNEL at commit and every instance drops that tenant's entry (this instance at once,
 * before the change is answered); a (re)connect of the
 * listener drops everything, since notifications may have been missed; and while the listener
 * is not connected nothing is trusted or kept (every read goes to the database). A read that
 * was in flight when a notification arrived is not kept either (`generation`).
 * The listener connects on first use, so processes that never read settings (the CLI) hold
 * no extra connection. Never read settings through here in a transaction after changing them:
 * the uncommitted value would be kept.
 */
@Injectable()
export class TenantSettingsCache extends TenantSettingsReader implements OnApplicationShutdown {
  private readonly entries = new Map<string, TenantSettings>();
  private zones: string[] | null = null;
  private generation = 0;
  private listener: PgListener | null = null;

  constructor(
    private readonly repository: TenantSettingsRepository,
    private readonly notifications: PgNotifications,
  ) {
    super();
    repository.onCommittedSave((tenantId) => this.forget(tenantId));
  }

  async get(tenantId: string): Promise<TenantSettings> {
    const listener = this.listen();
    const hit = this.entries.get(tenantId);
    if (hit && listener.connected) return hit;
    const generation = this.generation;
    const settings = await this.repository.find(tenantId);
    if (listener.connected && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(tenantId, settings);
    }
    return settings;
  }

  /** Every time zone some tenant uses (for scans over all tenants). */
  async timeZonesInUse(): Promise<string[]> {
    const listener = this.listen();
    if (this.zones && listener.connected) return this.zones;
    const generation = this.generation;
    const zones = await this.repository.timeZonesInUse();
    if (listener.connected && generation === this.generation) this.zones = zones;
    return zones;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  private listen(): PgListener {
    if (!this.listener) {
      this.listener = this.notifications.listener({
        channel: SETTINGS_CHANNEL,
        onNotify: (tenantId) => this.forget(tenantId),
      });
      this.listener.start();
    }
    return this.listener;
  }

  /** One tenant's settings changed (or, with no tenant, anything may have). */
  private forget(tenantId: string | undefined): void {
    this.generation++;
    this.zones = null;
    if (tenantId) this.entries.delete(tenantId);
    else this.entries.clear();
  }
}
