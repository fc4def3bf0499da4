import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SCOPES_EXTENSION } from '../../../shared/http/openapi';
export { IS_PUBLIC, Public } from '../../../shared/http/public.decorator';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { Scope } from '../domain/scopes';

import { REQUIRED_SCOPES } from '../../../shared/http/scopes';
export { REQUIRED_SCOPES };

/** The scope(s) a route needs; all of them must be in the token. */
export const RequireScopes = (...scopes: Scope[]) =>
  // The OpenAPI document lists them as the operation's oauth2 scopes (shared/http/openapi.ts).
  applyDecorators(SetMetadata(REQUIRED_SCOPES, scopes), ApiExtension(SCOPES_EXTENSION, scopes));

/** The authenticated API client (tenant id, client id, scopes). */
export const CurrentClient = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthenticatedClient => ctx.switchToHttp().getRequest().user,
);
