import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { HttpProblem } from '../../../shared/http/problem-details.filter';
import { REQUIRED_SCOPES } from './auth.decorators';

@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    if (!required || required.length === 0) return true;
    const client: AuthenticatedClient | undefined = context.switchToHttp().getRequest().user;
    const missing = required.filter((s) => !client?.scopes.includes(s));
    if (missing.length === 0) return true;
    throw new HttpProblem('forbidden', `This token lacks the scope(s): ${missing.join(' ')}.`, {
      'WWW-Authenticate': `Bearer realm="receivables", error="insufficient_scope", scope="${required.join(' ')}"`,
    });
  }
}
