import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { ApiClient } from '../domain/api-client';
import { ApiClientRepository } from '../domain/api-client.repository';

/**
 * Keeps each client's row for CLIENT_CACHE_TTL_MS (30 s) so that checking a bearer token costs
 * no database round trip, while a revoked client's tokens stop working within that time on
 * every instance. Tests shorten it to see a revocation take effect.
 */
@Injectable()
export class ClientStatusCache {
  private readonly entries = new Map<string, { client: ApiClient | null; expires: number }>();

  constructor(
    private readonly repository: ApiClientRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(clientId: string): Promise<ApiClient | null> {
    const now = Date.now();
    const hit = this.entries.get(clientId);
    if (hit && hit.expires > now) return hit.client;
    const client = await this.repository.findClient(clientId);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(clientId, { client, expires: now + this.config.clientCacheTtlMs });
    return client;
  }

  forget(clientId: string): void {
    this.entries.delete(clientId);
  }
}
