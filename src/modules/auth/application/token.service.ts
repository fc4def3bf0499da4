import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { ApiClientRepository } from '../domain/api-client.repository';
import { isScope, Scope } from '../domain/scopes';
import { SecretHasher } from '../domain/secret-hasher';
import { AccessTokenSigner } from './access-token.signer';

export type TokenResult =
  | { ok: true; accessToken: string; expiresIn: number; scope: string }
  | { ok: false; error: 'invalid_client' | 'invalid_scope'; description: string };

/** OAuth 2.0 client credentials: checks the client and issues a short-lived access token. */
@Injectable()
export class TokenService {
  constructor(
    private readonly repository: ApiClientRepository,
    private readonly hasher: SecretHasher,
    private readonly signer: AccessTokenSigner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<TokenResult> {
    const client = await this.repository.findClient(clientId);
    const valid = await this.hasher.verify(client?.secretHash ?? null, clientSecret);
    if (!client || !valid || client.revokedAt) {
      return { ok: false, error: 'invalid_client', description: 'Client authentication failed.' };
    }
    let scopes: Scope[] = client.scopes;
    if (requestedScope !== undefined && requestedScope.trim() !== '') {
      const requested = [...new Set(requestedScope.trim().split(/\s+/))];
      const refused = requested.filter((s) => !isScope(s) || !client.scopes.includes(s));
      if (refused.length > 0) {
        return { ok: false, error: 'invalid_scope', description: `Scope not allowed for this client: ${refused.join(' ')}.` };
      }
      scopes = requested as Scope[];
    }
    const scope = scopes.join(' ');
    const accessToken = await this.signer.sign({ tenantId: client.tenantId, clientId: client.id, scope }, this.config.jwtTtlSeconds);
    return { ok: true, accessToken, expiresIn: this.config.jwtTtlSeconds, scope };
  }
}
