import { Customer } from './customer.aggregate';

/** Port for loading and saving customers, always within one tenant. */
export abstract class CustomerRepository {
  abstract findById(tenantId: string, id: string): Promise<Customer | null>;
  abstract findByIdForUpdate(tenantId: string, id: string): Promise<Customer | null>;
  abstract findByExternalId(tenantId: string, externalId: string): Promise<Customer | null>;
  /** Case-insensitive; the oldest customer when several share the address. */
  abstract findByEmail(tenantId: string, email: string): Promise<Customer | null>;
  /** Whether any invoice or ledger entry refers to the customer (then its currency is fixed). */
  abstract hasActivity(tenantId: string, id: string): Promise<boolean>;
  /** Inserts or updates with a version check; a duplicate external_id is a ConflictError. */
  abstract save(customer: Customer): Promise<void>;
}
