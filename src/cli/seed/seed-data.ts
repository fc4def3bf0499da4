import { Client } from 'pg';
import { SeedOptions } from './seed-args';

export interface SeedReport {
  rows: number;
}

/** Placeholder until the invoicing/payments schema lands. */
export async function seedTenantData(
  _client: Client,
  _tenantId: string,
  _counts: { invoices: number; customers: number; payments: number },
  _opts: SeedOptions,
  _label: string,
): Promise<SeedReport> {
  return { rows: 0 };
}
