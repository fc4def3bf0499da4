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
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    const limit = client.rateLimit ?? this.config.rateLimitRequests;
    const window = this.config.rateLimitWindowSeconds;
    const key = `client:${client.clientId}`;
    const state = isPublic ? await this.limits.peek(key, limit, window) : await this.limits.take(key, limit, window);
    http.getRequest().rateLimit = state;
    const reply = http.getResponse<FastifyReply>();
    for (const [name, value] of Object.entries(rateLimitHeaders(state))) void reply.header(name, value);
    // A public route (the status endpoint above all) answers even an exhausted client: it is
    // where that client reads when it may call again.
    if (!state.allowed && !isPublic) {
      throw new HttpProblem('rate_limited', `Rate limit of ${limit} requests per ${window} s reached.`, { 'Retry-After': String(state.reset) });
    }
    return true;
  }
}
