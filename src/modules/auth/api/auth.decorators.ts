import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
export { IS_PUBLIC, Public } from '../../../shared/http/public.decorator';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { Scope } from '../domain/scopes';

import { REQUIRED_SCOPES } from '../../../shared/http/scopes';
export { REQUIRED_SCOPES };

/** The scope(s) a route needs; all of them must be in the token. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

/** The authenticated API client (tenant id, client id, scopes). */
export const CurrentClient = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthenticatedClient => ctx.switchToHttp().getRequest().user,
);
