import { Injectable } from '@nestjs/common';
import { JsonWebTokenError, JwtPayload, verify } from 'jsonwebtoken';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { HttpProblem } from '../../../shared/http/problem-details.filter';
import { RequestAuthenticator } from '../../../shared/http/request-authenticator';
import { ClientStatusCache } from './client-status.cache';
import { JwtSecretProvider } from './jwt-secret.provider';

export interface AccessTokenClaims {
  sub: string;
  tid: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

const BEARER = /^Bearer\s+\S/i;
const MAX_CACHED = 10_000;

/**
 * Bearer JWTs (HS256 only: `alg: none` and every other algorithm are refused, as are expired
 * tokens) for the Nest guard and the lean read path alike. A token whose signature was
 * verified is remembered until it expires, so a client's next requests skip the HMAC and
 * JSON parsing; the client row (revocation, tenant) is still checked on every request
 * through ClientStatusCache, and expiry against the clock.
 */
@Injectable()
export class JwtRequestAuthenticator extends RequestAuthenticator {
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly secrets: JwtSecretProvider,
    private readonly clients: ClientStatusCache,
  ) {
    super();
  }

  async authenticate(authorization: string | undefined): Promise<AuthenticatedClient> {
    const token = bearerToken(authorization);
    const claims = token === null ? null : this.claims(token);
    const client = claims ? await this.clientFor(claims) : null;
    if (client) return client;
    if (!BEARER.test(authorization ?? '')) {
      throw new HttpProblem('unauthorized', 'A bearer token is required.', { 'WWW-Authenticate': 'Bearer realm="receivables"' });
    }
    throw new HttpProblem('unauthorized', 'The access token is invalid, expired or revoked.', {
      'WWW-Authenticate': 'Bearer realm="receivables", error="invalid_token"',
    });
  }

  private claims(token: string): AccessTokenClaims | null {
    const now = Math.floor(Date.now() / 1000);
    const cached = this.verified.get(token);
    if (cached) return cached.exp > now ? cached : null;
    let payload: string | JwtPayload;
    try {
      payload = verify(token, this.secrets.key, { algorithms: ['HS256'], ignoreExpiration: false });
    } catch (error) {
      if (error instanceof JsonWebTokenError) return null;
      throw error;
    }
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.tid !== 'string' || typeof payload.scope !== 'string') return null;
    const claims = payload as unknown as AccessTokenClaims;
    if (typeof claims.exp === 'number') {
      if (this.verified.size >= MAX_CACHED) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims;
  }

  private async clientFor(claims: AccessTokenClaims): Promise<AuthenticatedClient | null> {
    const client = await this.clients.get(claims.sub);
    if (!client || client.revokedAt || client.tenantId !== claims.tid) return null;
    return { clientId: client.id, tenantId: client.tenantId, scopes: claims.scope.split(' ').filter(Boolean), rateLimit: client.rateLimit };
  }
}

/** `Authorization: Bearer <token>` as passport-jwt's fromAuthHeaderAsBearerToken() reads it. */
function bearerToken(header: string | undefined): string | null {
  const m = typeof header === 'string' ? /(\S+)\s+(\S+)/.exec(header) : null;
  return m && m[1].toLowerCase() === 'bearer' ? m[2] : null;
}
