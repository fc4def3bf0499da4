import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CustomerMatchingLock } from '../application/matching-ports';

/** A transaction-scoped advisory lock per (tenant, customer): released by commit or rollback. */
@Injectable()
export class AdvisoryCustomerMatchingLock extends CustomerMatchingLock {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async lock(tenantId: string, customerId: string): Promise<void> {
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`automatch:${tenantId}:${customerId}`]);
  }

  async lockMany(tenantId: string, customerIds: readonly string[]): Promise<void> {
    const keys = [...new Set(customerIds)].sort().map((id) => `automatch:${tenantId}:${id}`);
    if (keys.length === 0) return;
    // unnest yields the (sorted) array in order: the locks are taken in that order.
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k`, [keys]);
  }
}
