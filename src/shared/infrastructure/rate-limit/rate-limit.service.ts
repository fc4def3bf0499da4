import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { RateLimiterAbstract, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { timeoutOptions } from '../database/data-source';
import { DATABASE_URL } from '../database/database.tokens';
import { ServiceClient } from '../database/pg-client';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  reset: number;
  windowSeconds: number;
  allowed: boolean;
}

/** Requests this instance may still let through from points it already counted in the shared store. */
interface Reservation {
  left: number;
  /** the shared counter right after this instance's last reservation */
  consumed: number;
  /** end of the shared window (epoch ms) */
  expiresAt: number;
}

/**
 * Fixed-window counters shared by every instance: in PostgreSQL by default, in Redis when
 * REDIS_URL is set (rate-limiter-flexible does the atomic increments for both). One limiter
 * exists per distinct (limit, window) pair, so per-client limits cost nothing extra.
 *
 * `take()` (the per-request path) does not cost a round trip per request: an instance
 * reserves a small batch of points from the shared counter in one atomic increment and lets
 * that many requests through locally (see `batchSize`). The shared counter never grants
 * more than the limit in total, so the limit holds across instances; the price is that points
 * another instance reserved but did not use may refuse a client slightly early (at most
 * batch − 1 per other instance and window). Limits up to 100 use a batch of 1: exact.
 */
@Injectable()
export class RateLimitService implements OnModuleDestroy {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly reservations = new Map<string, Reservation>();
  private readonly reserving = new Map<string, Promise<void>>();
  private pool?: Pool;
  private redis?: { quit(): Promise<unknown> };
  private readonly logger = new Logger('RateLimit');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
  ) {}

  /** Counts one request of `key` against `limit` per `windowSeconds`. */
  async consume(key: string, limit: number, windowSeconds: number, points = 1): Promise<RateLimitState> {
    const limiter = this.limiter(limit, windowSeconds);
    try {
      const res = await limiter.consume(key, points);
      return this.state(res, limit, windowSeconds, true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.state(rejection, limit, windowSeconds, false);
      throw rejection;
    }
  }

  /**
   * Counts one request of `key` like `consume()`, from a batch reserved in the shared store
   * (one round trip per batch, not per request). Concurrent requests wait for one reservation.
   */
  async take(key: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const id = `${limit}/${windowSeconds}/${key}`;
    for (;;) {
      const r = this.reservations.get(id);
      const now = Date.now();
      if (r && r.expiresAt > now) {
        const reset = Math.max(1, Math.ceil((r.expiresAt - now) / 1000));
        if (r.left > 0) {
          r.left--;
          return { limit, remaining: Math.max(0, limit - r.consumed + r.left), reset, windowSeconds, allowed: true };
        }
        // Counters only grow within a window: once the shared one reached the limit, every
        // request until the window ends is refused, without asking again.
        if (r.consumed >= limit) return { limit, remaining: 0, reset, windowSeconds, allowed: false };
      }
      let pending = this.reserving.get(id);
      if (!pending) {
        pending = this.reserve(id, key, limit, windowSeconds).finally(() => this.reserving.delete(id));
        this.reserving.set(id, pending);
      }
      await pending;
    }
  }

  /** Batch size: 1 (exact) up to a limit of 100, then 1 % of the limit, at most 100. */
  static batchSize(limit: number): number {
    return Math.max(1, Math.min(100, Math.floor(limit / 100)));
  }

  private async reserve(id: string, key: string, limit: number, windowSeconds: number): Promise<void> {
    const size = RateLimitService.batchSize(limit);
    let res: RateLimiterRes;
    try {
      res = await this.limiter(limit, windowSeconds).consume(key, size);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection; // the points were counted all the same; fewer (or none) are granted
    }
    const granted = Math.max(0, Math.min(size, limit - (res.consumedPoints - size)));
    if (this.reservations.size > 10_000) this.reservations.clear();
    this.reservations.set(id, { left: granted, consumed: res.consumedPoints, expiresAt: Date.now() + res.msBeforeNext });
  }

  /** The current state of `key` without counting a request (including what this instance holds unused). */
  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const res = await this.limiter(limit, windowSeconds).get(key);
    if (!res) return { limit, remaining: limit, reset: windowSeconds, windowSeconds, allowed: true };
    const held = this.reservations.get(`${limit}/${windowSeconds}/${key}`);
    const unused = held && held.expiresAt > Date.now() ? held.left : 0;
    const state = this.state(res, limit, windowSeconds, res.consumedPoints - unused < limit);
    return { ...state, remaining: Math.min(limit, state.remaining + unused) };
  }

  /** Gives back points `consume()` took (an attempt counted up front that turned out not to count). */
  async refund(key: string, limit: number, windowSeconds: number, points = 1): Promise<void> {
    await this.limiter(limit, windowSeconds).reward(key, points);
  }

  async reset(key: string, limit: number, windowSeconds: number): Promise<void> {
    this.reservations.delete(`${limit}/${windowSeconds}/${key}`);
    await this.limiter(limit, windowSeconds).delete(key);
  }

  private state(res: RateLimiterRes, limit: number, windowSeconds: number, allowed: boolean): RateLimitState {
    return {
      limit,
      remaining: Math.max(0, limit - res.consumedPoints),
      reset: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      windowSeconds,
      allowed,
    };
  }

  private limiter(limit: number, windowSeconds: number): RateLimiterAbstract {
    const id = `${limit}/${windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const opts = { points: limit, duration: windowSeconds, keyPrefix: `rl${id}` };
      if (this.config.redisUrl) {
        limiter = new RateLimiterRedis({ ...opts, storeClient: this.redisClient(), useRedisPackage: false });
      } else {
        limiter = new RateLimiterPostgres({
          ...opts,
          storeClient: this.pgPool(),
          tableName: 'rate_limits',
          tableCreated: true,
          clearExpiredByTimeout: false,
        });
      }
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private pgPool(): Pool {
    if (!this.pool) {
      this.pool = new Pool({
        connectionString: this.databaseUrl,
        max: 4,
        application_name: 'receivables-rate-limit',
        Client: ServiceClient, // an 'error' listener on each connection from its creation on (ADR 0055)
        // Never wait forever for a connection: a request fails (503) instead of hanging.
        connectionTimeoutMillis: 10_000,
        ...timeoutOptions(this.config.dbTimeouts),
      });
      // An idle connection PostgreSQL closes (pg_terminate_backend, a restart, a failover) is
      // reported here; without a listener the pool's 'error' event would end the process. The
      // pool drops that connection and opens a new one for the next request.
      this.pool.on('error', (error) => this.logger.warn(`rate limiter pool: idle connection lost (${error.message})`));
    }
    return this.pool;
  }

  private redisClient(): unknown {
    if (!this.redis) {
      // Loaded only when REDIS_URL is set, so the default setup never opens a Redis connection.
      const Redis = require('ioredis');
      this.redis = new Redis(this.config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    }
    return this.redis;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
    await this.redis?.quit().catch(() => undefined);
  }
}
