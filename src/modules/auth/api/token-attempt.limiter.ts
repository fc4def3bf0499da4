import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { RateLimitService, RateLimitState } from '../../../shared/infrastructure/rate-limit/rate-limit.service';

interface Counter {
  key: string;
  limit: number;
  window: number;
}

/** An attempt that may go on to the secret check; `settle` says how it ended. */
export interface TokenAttempt {
  /** `failed`: a wrong secret or unknown client. `other`: anything that is not a guess (bad scope); `issued`: a token. */
  settle(outcome: 'failed' | 'issued' | 'other'): Promise<RateLimitState | null>;
}

const DAY = 86_400;
/** Failures from one address over all client ids, as a multiple of the per-(client, address) limit. */
const ADDRESS_FACTOR = 3;
/** The day's budget, as a multiple of the window's: past it the lockout lasts until the day is over. */
const DAILY_FACTOR = 4;

/**
 * Brute-force limits of the token endpoint (docs/security.md). Failures are counted per
 * (client id, address) and per address, never per client id alone: a guesser elsewhere
 * can lock only itself out, not the real client. (Spreading guesses over many addresses does
 * not help either: a secret is 32 random bytes.) Two tiers give the backoff: a window's
 * budget (`TOKEN_FAILURE_LIMIT` per `TOKEN_FAILURE_WINDOW_SECONDS`, the address three times
 * that) and, for an attacker that keeps coming back, a day's budget of four windows' worth,
 * after which the lockout lasts until the day's window ends.
 *
 * A failure point is taken from every counter BEFORE the secret is checked and given back
 * when the attempt turns out not to be a guess, so concurrent attempts cannot all pass a
 * check made before any of them was counted: at most the limit's worth are ever checked.
 * Tokens actually issued are limited per client too (`TOKEN_ISSUE_LIMIT` a minute): each
 * check costs an Argon2 hash, and a client needs one token an hour.
 */
@Injectable()
export class TokenAttemptLimiter {
  constructor(
    private readonly limits: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts the attempt; resolves to the refusing counter's state when it may not go on. */
  async begin(clientId: string, address: string): Promise<{ refused: RateLimitState } | { attempt: TokenAttempt }> {
    const client = createHash('sha256').update(clientId).digest('base64url').slice(0, 22);
    const counters = this.failureCounters(client, address);
    const states = await Promise.all(counters.map((c) => this.limits.consume(c.key, c.limit, c.window)));
    const refused = states.filter((s) => !s.allowed).sort((a, b) => b.reset - a.reset)[0];
    if (refused) return { refused };
    return {
      attempt: {
        settle: async (outcome) => {
          if (outcome === 'failed') return null;
          await Promise.all(counters.map((c) => this.limits.refund(c.key, c.limit, c.window)));
          if (outcome !== 'issued') return null;
          const issued = await this.limits.consume(`token-issued:${client}`, this.config.tokenIssueLimit, 60);
          return issued.allowed ? null : issued;
        },
      },
    };
  }

  private failureCounters(client: string, address: string): Counter[] {
    const limit = this.config.tokenFailureLimit;
    const window = this.config.tokenFailureWindowSeconds;
    return [
      { key: `token-fail:pair:${client}:${address}`, limit, window },
      { key: `token-fail:addr:${address}`, limit: limit * ADDRESS_FACTOR, window },
      { key: `token-fail-day:pair:${client}:${address}`, limit: limit * DAILY_FACTOR, window: Math.max(DAY, window) },
      { key: `token-fail-day:addr:${address}`, limit: limit * ADDRESS_FACTOR * DAILY_FACTOR, window: Math.max(DAY, window) },
    ];
  }
}
