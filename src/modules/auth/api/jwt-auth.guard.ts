import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RequestAuthenticator } from '../../../shared/http/request-authenticator';
import { IS_PUBLIC } from './auth.decorators';

const BEARER = /^Bearer\s+\S/i;

/**
 * The one global guard for bearer tokens. Public routes skip it, but still pick up a valid
 * token when one is sent (the status endpoint then reports that client's rate limit).
 * Verification itself is the RequestAuthenticator's, shared with the lean read path.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest();
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (!isPublic) {
      request.user = await this.authenticator.authenticate(request.headers.authorization);
      return true;
    }
    if (!BEARER.test(request.headers.authorization ?? '')) return true;
    try {
      request.user = await this.authenticator.authenticate(request.headers.authorization);
    } catch {
      request.user = undefined;
    }
    return true;
  }
}
