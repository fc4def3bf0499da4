import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { HttpProblem } from '../../../shared/http/problem-details.filter';
import { IS_PUBLIC } from './auth.decorators';

const BEARER = /^Bearer\s+\S/i;

/**
 * The one global guard for bearer tokens. Public routes skip it, but still pick up a valid
 * token when one is sent (the status endpoint then reports that client's rate limit).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (!isPublic) return (await super.canActivate(context)) as boolean;
    const request = context.switchToHttp().getRequest();
    if (!BEARER.test(request.headers.authorization ?? '')) return true;
    try {
      await super.canActivate(context);
    } catch {
      request.user = undefined;
    }
    return true;
  }

  override handleRequest<T>(err: unknown, user: T, _info: unknown, context: ExecutionContext): T {
    if (user) return user;
    const request = context.switchToHttp().getRequest();
    if (!BEARER.test(request.headers.authorization ?? '')) {
      throw new HttpProblem('unauthorized', 'A bearer token is required.', { 'WWW-Authenticate': 'Bearer realm="receivables"' });
    }
    throw new HttpProblem('unauthorized', 'The access token is invalid, expired or revoked.', {
      'WWW-Authenticate': 'Bearer realm="receivables", error="invalid_token"',
    });
  }
}
