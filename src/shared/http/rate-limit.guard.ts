import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { RateLimitService, RateLimitState } from '../infrastructure/rate-limit/rate-limit.service';
import { AuthenticatedClient } from './authenticated-client';
import { HttpProblem } from './problem-details.filter';
import { IS_PUBLIC } from './public.decorator';

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"default";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"default";r=${state.remaining};t=${state.reset}`,
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.reset),
  };
}

/**
 * Counts one request of `client` (or, on a public route, only reports its state), sets the
 * rate-limit headers, and throws 429 over the limit (not on public routes). Shared by the
 * guard and the lean read path.
 */
export async function countRequest(
  limits: RateLimitService,
  config: AppConfig,
  client: AuthenticatedClient,
  isPublic: boolean,
  request: { rateLimit?: RateLimitState },
  reply: FastifyReply,
): Promise<RateLimitState> {
  const limit = client.rateLimit ?? config.rateLimitRequests;
  const window = config.rateLimitWindowSeconds;
  const key = `client:${client.clientId}`;
  const state = isPublic ? await limits.peek(key, limit, window) : await limits.take(key, limit, window);
  request.rateLimit = state;
  for (const [name, value] of Object.entries(rateLimitHeaders(state))) void reply.header(name, value);
  // A public route (the status endpoint above all) answers even an exhausted client: it is
  // where that client reads when it may call again.
  if (!state.allowed && !isPublic) {
    throw new HttpProblem('rate_limited', `Rate limit of ${limit} requests per ${window} s reached.`, { 'Retry-After': String(state.reset) });
  }
  return state;
}

/**
 * Per-client request limits (contract §3), counted after authentication. Public routes
 * count nothing; with a token they still report the client's state in the headers.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limits: RateLimitService,
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const client: AuthenticatedClient | undefined = http.getRequest().user;
    if (!client) return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) ?? false;
    await countRequest(this.limits, this.config, client, isPublic, http.getRequest(), http.getResponse<FastifyReply>());
    return true;
  }
}
