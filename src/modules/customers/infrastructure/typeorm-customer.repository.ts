import { Injectable } from '@nestjs/common';
import { ConflictError, InvalidStateError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { Customer } from '../domain/customer.aggregate';
import { CustomerRepository } from '../domain/customer.repository';
import { CUSTOMER_COLUMNS, CustomerMapper, CustomerRow } from './customer.mapper';

/** Raw SQL on the unit of work's transaction; rows map to the aggregate through CustomerMapper. */
@Injectable()
export class TypeormCustomerRepository extends CustomerRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  findById(tenantId: string, id: string): Promise<Customer | null> {
    return this.one(`SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  }

  findByIdForUpdate(tenantId: string, id: string): Promise<Customer | null> {
    return this.one(`SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
  }

  findByExternalId(tenantId: string, externalId: string): Promise<Customer | null> {
    return this.one(`SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND external_id = $2`, [tenantId, externalId]);
  }

  findByEmail(tenantId: string, email: string): Promise<Customer | null> {
    return this.one(
      `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2) ORDER BY created_at, id LIMIT 1`,
      [tenantId, email],
    );
  }

  async hasActivity(tenantId: string, id: string): Promise<boolean> {
    const [row] = await this.uow.query<{ active: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM invoices WHERE tenant_id = $1 AND customer_id = $2)
           OR EXISTS (SELECT 1 FROM ledger_entries WHERE tenant_id = $1 AND customer_id = $2) AS active`,
      [tenantId, id],
    );
    return row.active;
  }

  async save(customer: Customer): Promise<void> {
    if (!customer.isNew && !customer.isChanged) return;
    const s = customer.toSnapshot();
    const values = CustomerMapper.toRow(s);
    try {
      if (customer.isNew) {
        const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
        await this.uow.query(`INSERT INTO customers (${CUSTOMER_COLUMNS}) VALUES (${placeholders})`, values);
      } else {
        // An UPDATE answers [rows, rowCount] (TypeORM's shape, kept by the unit of work).
        const [rows] = (await this.uow.query(
          `UPDATE customers SET name = $3, email = $4, external_id = $5, phone = $6, billing_address = $7, currency = $8,
                  payment_terms_days = $9, credit_limit = $10, credit_hold = $11, metadata = $12, aliases = $13, payer_accounts = $14,
                  version = $15, updated_at = $16
            WHERE tenant_id = $1 AND id = $2 AND version = $17
           RETURNING id`,
          [...values.slice(0, 15), s.updatedAt, customer.expectedVersion],
        )) as unknown as [unknown[], number];
        if (rows.length === 0) throw new ConflictError(`Customer ${s.id} was changed concurrently; retry.`);
      }
    } catch (error) {
      const constraint = (error as { constraint?: string }).constraint;
      if (constraint === 'customers_external_id_key') {
        throw new ConflictError(`A customer with external_id "${s.externalId}" already exists.`);
      }
      // Invoices, payments, credit notes or refunds were written in the old currency since the check
      // in the handler (the database refuses to change the currency they refer to; migrations
      // 1763801200200, 1763801510000, 1763801520000).
      if (constraint?.endsWith('_customer_currency_fkey')) {
        throw new InvalidStateError('The currency of a customer with invoices or payments cannot change.');
      }
      throw error;
    }
    await this.savePayerKeys(customer);
    customer.markPersisted();
    await this.uow.publish(customer.pullEvents());
  }

  /**
   * The customer's payer keys (normalised name, aliases, accounts) in customer_payer_keys, the
   * index payer identification looks payers up in: the ones no longer held go, new ones are added.
   */
  private async savePayerKeys(customer: Customer): Promise<void> {
    const { names, accounts } = customer.payerKeys();
    const kinds = [...names.map(() => 'name'), ...accounts.map(() => 'account')];
    const keys = [...names, ...accounts];
    await this.uow.query(
      `WITH wanted AS (SELECT * FROM unnest($3::text[], $4::text[]) AS w (kind, key)),
            gone AS (DELETE FROM customer_payer_keys k
                      WHERE k.tenant_id = $1 AND k.customer_id = $2
                        AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.kind = k.kind AND w.key = k.key))
       INSERT INTO customer_payer_keys (tenant_id, kind, key, customer_id)
       SELECT $1, kind, key, $2 FROM wanted
       ON CONFLICT DO NOTHING`,
      [customer.tenantId, customer.id, kinds, keys],
    );
  }

  private async one(sql: string, params: unknown[]): Promise<Customer | null> {
    const [row] = await this.uow.query<CustomerRow>(sql, params);
    return row ? CustomerMapper.toDomain(row) : null;
  }
}
