import { AuthenticatedClient } from './authenticated-client';

/**
 * Port: who is calling, from the Authorization header. The auth module provides it (bearer
 * JWTs); the Nest guard and the lean read path (lean-reads.ts) both use it, so a request is
 * authenticated one way whichever path serves it. Throws an `HttpProblem` (401) when the
 * header carries no valid token.
 */
export abstract class RequestAuthenticator {
  abstract authenticate(authorization: string | undefined): Promise<AuthenticatedClient>;
}
