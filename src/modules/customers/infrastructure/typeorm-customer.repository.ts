import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../../shared/domain/domain-error';
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
        const rows = await this.uow.query(
          `UPDATE customers SET name = $3, email = $4, external_id = $5, phone = $6, billing_address = $7, currency = $8,
                  payment_terms_days = $9, credit_limit = $10, credit_hold = $11, metadata = $12, version = $13, updated_at = $14
            WHERE tenant_id = $1 AND id = $2 AND version = $15
           RETURNING id`,
          [...values.slice(0, 13), s.updatedAt, customer.expectedVersion],
        );
        if (rows.length === 0) throw new ConflictError(`Customer ${s.id} was changed concurrently; retry.`);
      }
    } catch (error) {
      if ((error as { constraint?: string }).constraint === 'customers_external_id_key') {
        throw new ConflictError(`A customer with external_id "${s.externalId}" already exists.`);
      }
      throw error;
    }
    customer.markPersisted();
    await this.uow.publish(customer.pullEvents());
  }

  private async one(sql: string, params: unknown[]): Promise<Customer | null> {
    const [row] = await this.uow.query<CustomerRow>(sql, params);
    return row ? CustomerMapper.toDomain(row) : null;
  }
}
