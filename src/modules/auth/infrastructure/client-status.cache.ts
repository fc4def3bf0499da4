import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { PgListener, PgNotifications } from '../../../shared/infrastructure/database/pg-listener';
import { ApiClient } from '../domain/api-client';
import { ApiClientRepository } from '../domain/api-client.repository';

/** NOTIFY channel of every change to an `api_clients` row (a trigger sends the client id at commit). */
export const CLIENTS_CHANNEL = 'api_clients';
const MAX_ENTRIES = 10_000;

/**
 * Keeps each client's row so that checking a bearer token costs no database round trip, and
 * drops it the moment it changes (ADR 35): a trigger notifies CLIENTS_CHANNEL at commit of any
 * change to a client (a revocation by the CLI or by hand included) and every instance forgets
 * that client, so a revoked client's tokens are refused everywhere within the notification's
 * latency (milliseconds; contract §2 asks for one second). A (re)connect of the listener drops
 * everything, since notifications may have been missed; while the listener is not connected
 * nothing is trusted (every check reads the row). A read that was in flight when a notification
 * arrived is not kept (`generation`). CLIENT_CACHE_TTL_MS (30 s) only bounds an entry's age as a
 * fallback. The listener connects on first use, so the CLI holds no extra connection.
 */
@Injectable()
export class ClientStatusCache implements OnApplicationShutdown {
  private readonly entries = new Map<string, { client: ApiClient | null; expires: number }>();
  private readonly observers = new Set<(clientId: string | undefined) => void>();
  private generation = 0;
  private listener: PgListener | null = null;

  constructor(
    private readonly repository: ApiClientRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notifications: PgNotifications,
  ) {}

  async get(clientId: string): Promise<ApiClient | null> {
    const listener = this.listen();
    const now = Date.now();
    const hit = this.entries.get(clientId);
    if (hit && hit.expires > now && listener.connected) return hit.client;
    const generation = this.generation;
    const client = await this.repository.findClient(clientId);
    if (listener.connected && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(clientId, { client, expires: now + this.config.clientCacheTtlMs });
    }
    return client;
  }

  forget(clientId: string | undefined): void {
    this.generation++;
    if (clientId) this.entries.delete(clientId);
    else this.entries.clear();
    this.observers.forEach((observe) => observe(clientId));
  }

  /**
   * Called after every invalidation with the client id (undefined: everything was dropped);
   * returns the unsubscribe function. For tests and diagnostics.
   */
  onInvalidated(observe: (clientId: string | undefined) => void): () => void {
    this.observers.add(observe);
    return () => this.observers.delete(observe);
  }

  /** Whether change notifications are arriving (the cache is trusted only then). */
  get listening(): boolean {
    return this.listener?.connected ?? false;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
    this.listener = null;
  }

  /** Starts listening (idempotent); `get` does it on first use. */
  listen(): PgListener {
    if (!this.listener) {
      this.listener = this.notifications.listener({
        channel: CLIENTS_CHANNEL,
        onNotify: (clientId) => this.forget(clientId || undefined),
      });
      this.listener.start();
    }
    return this.listener;
  }
}
