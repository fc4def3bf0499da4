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

/** Verifies HS256 bearer tokens (`alg: none` and every other algorithm are refused). */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    secrets: JwtSecretProvider,
    private readonly clients: ClientStatusCache,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: (_req: unknown, _token: unknown, done: (err: unknown, secret?: string) => void) => done(null, secrets.secret),
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(claims: AccessTokenClaims): Promise<AuthenticatedClient | false> {
    if (typeof claims.sub !== 'string' || typeof claims.tid !== 'string' || typeof claims.scope !== 'string') return false;
    const client = await this.clients.get(claims.sub);
    if (!client || client.revokedAt || client.tenantId !== claims.tid) return false;
    return {
      clientId: client.id,
      tenantId: client.tenantId,
      scopes: claims.scope.split(' ').filter(Boolean),
      rateLimit: client.rateLimit,
    };
  }
}
