import { ApiClient, Tenant } from './api-client';

export abstract class ApiClientRepository {
  abstract findClient(clientId: string): Promise<ApiClient | null>;
  abstract insertClient(client: ApiClient): Promise<void>;
  abstract revokeClient(clientId: string, at: Date): Promise<boolean>;
  abstract findTenant(tenantId: string): Promise<Tenant | null>;
  abstract insertTenant(tenant: Tenant): Promise<void>;
  abstract countTenants(): Promise<number>;
}
