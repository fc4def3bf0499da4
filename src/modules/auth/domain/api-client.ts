import { Scope } from './scopes';

/** A machine client of one tenant; its secret is kept only as a slow hash. */
export interface ApiClient {
  id: string;
  tenantId: string;
  name: string | null;
  secretHash: string;
  scopes: Scope[];
  rateLimit: number | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface Tenant {
  id: string;
  name: string;
  createdAt: Date;
}
