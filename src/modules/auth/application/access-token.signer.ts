/** What an access token says: who the client is, for which tenant, with which scopes. */
export interface AccessTokenClaims {
  tenantId: string;
  clientId: string;
  /** space-separated scopes */
  scope: string;
}

/** Port: signs access tokens (the infrastructure decides the format and key). */
export abstract class AccessTokenSigner {
  abstract sign(claims: AccessTokenClaims, ttlSeconds: number): Promise<string>;
}
