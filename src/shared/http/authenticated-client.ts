/** The API client a bearer token was issued to, attached to the request by the JWT guard. */
export interface AuthenticatedClient {
  clientId: string;
  tenantId: string;
  scopes: string[];
  /** per-client request limit; null uses the default */
  rateLimit: number | null;
}
