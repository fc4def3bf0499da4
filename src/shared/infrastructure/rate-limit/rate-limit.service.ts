import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { RateLimiterAbstract, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { DATABASE_URL } from '../database/database.tokens';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  reset: number;
  windowSeconds: number;
  allowed: boolean;
}

/**
 * Fixed-window counters shared by every instance: in PostgreSQL by default, in Redis when
 * REDIS_URL is set (rate-limiter-flexible does the atomic increments for both). One limiter
 * exists per distinct (limit, window) pair, so per-client limits cost nothing extra.
 */
@Injectable()
export class RateLimitService implements OnModuleDestroy {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private pool?: Pool;
  private redis?: { quit(): Promise<unknown> };

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

  /** The current state of `key` without counting a request. */
  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitState> {
    const res = await this.limiter(limit, windowSeconds).get(key);
    if (!res) return { limit, remaining: limit, reset: windowSeconds, windowSeconds, allowed: true };
    return this.state(res, limit, windowSeconds, res.consumedPoints < limit);
  }

  async reset(key: string, limit: number, windowSeconds: number): Promise<void> {
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
    this.pool ??= new Pool({ connectionString: this.databaseUrl, max: 4, application_name: 'receivables-rate-limit' });
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
