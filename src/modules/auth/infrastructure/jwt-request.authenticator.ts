import { Injectable } from '@nestjs/common';
import passport from 'passport';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { HttpProblem } from '../../../shared/http/problem-details.filter';
import { RequestAuthenticator } from '../../../shared/http/request-authenticator';
import { ClientStatusCache } from './client-status.cache';
import { AccessTokenClaims, clientFor, JWT_STRATEGY } from './jwt.strategy';

const BEARER = /^Bearer\s+\S/i;
const MAX_CACHED = 10_000;

/**
 * Authenticates a request's bearer token through passport and the passport-jwt strategy
 * (JwtStrategy), for the Nest guard and the lean read path alike. A token whose signature was
 * verified is remembered until it expires, so a client's next requests skip the HMAC and the
 * JSON parsing; the client row (revocation, tenant) is still checked on every request through
 * ClientStatusCache, and expiry against the clock.
 */
@Injectable()
export class JwtRequestAuthenticator extends RequestAuthenticator {
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(private readonly clients: ClientStatusCache) {
    super();
  }

  async authenticate(authorization: string | undefined): Promise<AuthenticatedClient> {
    const token = BEARER.test(authorization ?? '') ? authorization!.replace(/^Bearer\s+/i, '').trim() : null;
    const cached = token === null ? undefined : this.verified.get(token);
    const client = cached ? await this.fromCache(token!, cached) : await this.viaPassport(authorization, token);
    if (client) return client;
    if (token === null) {
      throw new HttpProblem('unauthorized', 'A bearer token is required.', { 'WWW-Authenticate': 'Bearer realm="receivables"' });
    }
    throw new HttpProblem('unauthorized', 'The access token is invalid, expired or revoked.', {
      'WWW-Authenticate': 'Bearer realm="receivables", error="invalid_token"',
    });
  }

  private fromCache(token: string, claims: AccessTokenClaims): Promise<AuthenticatedClient | false> {
    if (claims.exp <= Math.floor(Date.now() / 1000)) {
      this.verified.delete(token);
      return Promise.resolve(false);
    }
    return clientFor(this.clients, claims);
  }

  private viaPassport(authorization: string | undefined, token: string | null): Promise<AuthenticatedClient | false> {
    if (token === null) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      const request = { headers: { authorization } };
      passport.authenticate(JWT_STRATEGY, { session: false }, (error: unknown, client: AuthenticatedClient | false) => {
        if (error) return reject(error);
        if (client) this.remember(token);
        resolve(client || false);
      })(request, {}, reject);
    });
  }

  private remember(token: string): void {
    // The payload was verified by passport-jwt just now; only its claims are kept.
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as AccessTokenClaims;
    if (typeof claims.exp !== 'number') return;
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(token, claims);
  }
}
