import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CustomerMatchingLock } from '../application/matching-ports';

const lockKey = (tenantId: string, customerId: string) => `automatch:${tenantId}:${customerId}`;
/** What the unit of work's identity map holds for a lock this transaction has taken (it is forgotten with the transaction). */
const HELD = Object.freeze({ held: true });

/** A transaction-scoped advisory lock per (tenant, customer): released by commit or rollback. */
@Injectable()
export class AdvisoryCustomerMatchingLock extends CustomerMatchingLock {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async lock(tenantId: string, customerId: string): Promise<void> {
    const key = lockKey(tenantId, customerId);
    if (this.uow.recall(key)) return;
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [key]);
    this.uow.remember(key, HELD);
  }

  async lockReadingCurrency(tenantId: string, customerId: string): Promise<string | null> {
    const key = lockKey(tenantId, customerId);
    // The lock is taken in the projection: only when the customer's row is found.
    const [row] = await this.uow.query<{ currency: string }>(
      `SELECT c.currency, pg_advisory_xact_lock(hashtextextended($3, 0)) AS locked FROM customers c WHERE c.tenant_id = $1 AND c.id = $2`,
      [tenantId, customerId, key],
    );
    if (!row) return null;
    this.uow.remember(key, HELD);
    return row.currency;
  }

  async lockMany(tenantId: string, customerIds: readonly string[]): Promise<void> {
    const keys = [...new Set(customerIds)].sort().map((id) => lockKey(tenantId, id));
    if (keys.length === 0) return;
    // unnest yields the (sorted) array in order: the locks are taken in that order.
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k`, [keys]);
    for (const key of keys) this.uow.remember(key, HELD);
  }
}
