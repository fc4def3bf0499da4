import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { assertScopes } from '../../../shared/http/scopes';
import { REQUIRED_SCOPES } from './auth.decorators';

@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    const client: AuthenticatedClient | undefined = context.switchToHttp().getRequest().user;
    assertScopes(client, required);
    return true;
  }
}
