import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { InvoiceNumberRepository } from '../domain/invoice-number.repository';

/**
 * One counter row per tenant, incremented with an upsert that keeps the row locked until the
 * transaction ends: concurrent creations queue on it, a rollback returns its number, so the
 * generated numbers are unique and gapless (not MAX()+1, which races).
 */
@Injectable()
export class TypeormInvoiceNumberRepository extends InvoiceNumberRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async next(tenantId: string): Promise<string> {
    for (;;) {
      const [row] = await this.uow.query<{ last_value: string }>(
        `INSERT INTO invoice_number_counters (tenant_id, last_value) VALUES ($1, 1)
         ON CONFLICT (tenant_id) DO UPDATE SET last_value = invoice_number_counters.last_value + 1
         RETURNING last_value::text`,
        [tenantId],
      );
      const number = `INV-${row.last_value.padStart(6, '0')}`;
      // A client may have taken this number explicitly; skip it rather than fail the request.
      const taken = await this.uow.query(`SELECT 1 FROM invoices WHERE tenant_id = $1 AND lower(number) = lower($2)`, [tenantId, number]);
      if (taken.length === 0) return number;
    }
  }

  async lock(tenantId: string): Promise<void> {
    await this.uow.query(
      `INSERT INTO invoice_number_counters (tenant_id, last_value) VALUES ($1, 0)
       ON CONFLICT (tenant_id) DO UPDATE SET last_value = invoice_number_counters.last_value`,
      [tenantId],
    );
  }
}
