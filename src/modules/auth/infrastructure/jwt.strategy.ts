import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
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

export const JWT_STRATEGY = 'jwt';

/**
 * passport-jwt verifies bearer tokens: HS256 only (`alg: none` and every other algorithm are
 * refused), expiry checked; then the client must still exist, be unrevoked and belong to the
 * token's tenant (through the 30 s client cache).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    secrets: JwtSecretProvider,
    private readonly clients: ClientStatusCache,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A KeyObject, made once: jsonwebtoken would otherwise re-derive a key from the string on every verification.
      // jsonwebtoken takes a KeyObject although passport-jwt's types only name strings and Buffers.
      secretOrKeyProvider: (_request: unknown, _token: unknown, done: (err: unknown, key?: string | Buffer) => void) =>
        done(null, secrets.key as unknown as Buffer),
      algorithms: ['HS256'],
      ignoreExpiration: false,
      passReqToCallback: false,
    });
  }

  validate(claims: AccessTokenClaims): Promise<AuthenticatedClient | false> {
    return clientFor(this.clients, claims);
  }
}

export async function clientFor(clients: ClientStatusCache, claims: AccessTokenClaims): Promise<AuthenticatedClient | false> {
  if (typeof claims.sub !== 'string' || typeof claims.tid !== 'string' || typeof claims.scope !== 'string') return false;
  const client = await clients.get(claims.sub);
  if (!client || client.revokedAt || client.tenantId !== claims.tid) return false;
  return { clientId: client.id, tenantId: client.tenantId, scopes: claims.scope.split(' ').filter(Boolean), rateLimit: client.rateLimit };
}
