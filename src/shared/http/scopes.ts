import { AuthenticatedClient } from './authenticated-client';
import { HttpProblem } from './problem-details.filter';

/** Metadata key of @RequireScopes (the auth module's decorator); read by the guard and the lean read path. */
export const REQUIRED_SCOPES = 'auth:scopes';

/**
 * 403 insufficient_scope unless the client's token carries every required scope (contract §2).
 * `what` names the part of the request that needs them when it is not the whole route.
 */
export function assertScopes(client: AuthenticatedClient | undefined, required: readonly string[] | undefined, what?: string): void {
  if (!required || required.length === 0) return;
  const missing = required.filter((s) => !client?.scopes.includes(s));
  if (missing.length === 0) return;
  throw new HttpProblem('forbidden', `${what ? `${what} needs` : 'This token lacks'} the scope(s): ${missing.join(' ')}.`, {
    'WWW-Authenticate': `Bearer realm="receivables", error="insufficient_scope", scope="${required.join(' ')}"`,
  });
}
