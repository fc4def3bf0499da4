import { Injectable } from '@nestjs/common';
import { nextDocumentNumber } from '../../../shared/infrastructure/database/document-counters';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { InvoiceNumberRepository } from '../domain/invoice-number.repository';

/** One counter row per tenant (nextDocumentNumber): generated numbers are unique and gapless. */
@Injectable()
export class TypeormInvoiceNumberRepository extends InvoiceNumberRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async next(tenantId: string): Promise<string> {
    for (;;) {
      const number = `INV-${await nextDocumentNumber(this.uow, 'invoice_number_counters', tenantId)}`;
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
