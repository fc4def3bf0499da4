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
}
