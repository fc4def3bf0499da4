import { Injectable } from '@nestjs/common';
import { ApiClient } from '../domain/api-client';
import { ApiClientRepository } from '../domain/api-client.repository';

const TTL_MS = 30_000;

/**
 * Keeps each client's row for 30 s so that checking a bearer token costs no database round
 * trip, while a revoked client's tokens stop working within 30 s on every instance.
 */
@Injectable()
export class ClientStatusCache {
  private readonly entries = new Map<string, { client: ApiClient | null; expires: number }>();

  constructor(private readonly repository: ApiClientRepository) {}

  async get(clientId: string): Promise<ApiClient | null> {
    const now = Date.now();
    const hit = this.entries.get(clientId);
    if (hit && hit.expires > now) return hit.client;
    const client = await this.repository.findClient(clientId);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(clientId, { client, expires: now + TTL_MS });
    return client;
  }

  forget(clientId: string): void {
    this.entries.delete(clientId);
  }
}
