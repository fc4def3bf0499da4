import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AccessTokenClaims, AccessTokenSigner } from '../application/access-token.signer';
import { JwtSecretProvider } from './jwt-secret.provider';

/** HS256 JWTs (`sub` the client, `tid` the tenant, `scope`, a unique `jti`) signed with the service's key. */
@Injectable()
export class JwtAccessTokenSigner extends AccessTokenSigner {
  constructor(
    private readonly jwt: JwtService,
    private readonly secrets: JwtSecretProvider,
  ) {
    super();
  }

  sign(claims: AccessTokenClaims, ttlSeconds: number): Promise<string> {
    return this.jwt.signAsync(
      { tid: claims.tenantId, scope: claims.scope },
      { secret: this.secrets.secret, algorithm: 'HS256', subject: claims.clientId, expiresIn: ttlSeconds, jwtid: randomUUID() },
    );
  }
}
