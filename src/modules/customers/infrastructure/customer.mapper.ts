import { toNullableNumber } from '../../../shared/infrastructure/database/data-source';
import { BillingAddress, Customer, CustomerSnapshot } from '../domain/customer.aggregate';

/** A customers row as pg returns it (bigint as string). */
export interface CustomerRow {
  tenant_id: string;
  id: string;
  name: string;
  email: string | null;
  external_id: string | null;
  phone: string | null;
  billing_address: BillingAddress | null;
  currency: string;
  payment_terms_days: number;
  credit_limit: string | null;
  credit_hold: boolean;
  metadata: Record<string, unknown>;
  aliases: string[];
  payer_accounts: string[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const CUSTOMER_COLUMNS =
  'tenant_id, id, name, email, external_id, phone, billing_address, currency, payment_terms_days, credit_limit, credit_hold, metadata, aliases, payer_accounts, version, created_at, updated_at';

export const CustomerMapper = {
  toDomain(row: CustomerRow): Customer {
    return Customer.restore({
      tenantId: row.tenant_id,
      id: row.id,
      name: row.name,
      email: row.email,
      externalId: row.external_id,
      phone: row.phone,
      billingAddress: row.billing_address,
      currency: row.currency,
      paymentTermsDays: row.payment_terms_days,
      creditLimit: toNullableNumber(row.credit_limit),
      creditHold: row.credit_hold,
      metadata: row.metadata ?? {},
      aliases: row.aliases ?? [],
      payerAccounts: row.payer_accounts ?? [],
      version: row.version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
  },

  /** Column values in CUSTOMER_COLUMNS order. */
  toRow(s: CustomerSnapshot): unknown[] {
    return [
      s.tenantId,
      s.id,
      s.name,
      s.email,
      s.externalId,
      s.phone,
      s.billingAddress ? JSON.stringify(s.billingAddress) : null,
      s.currency,
      s.paymentTermsDays,
      s.creditLimit,
      s.creditHold,
      JSON.stringify(s.metadata),
      s.aliases,
      s.payerAccounts,
      s.version,
      s.createdAt,
      s.updatedAt,
    ];
  },
};
