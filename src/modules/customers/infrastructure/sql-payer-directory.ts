import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { PayerCandidate, PayerDirectory } from '../domain/payer-directory';

/** One probe of customer_payer_keys' primary key, joined to the customers it names. */
@Injectable()
export class SqlPayerDirectory extends PayerDirectory {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  find(tenantId: string, query: { kind: 'account' | 'name'; key: string; currency: string; limit: number }): Promise<PayerCandidate[]> {
    return this.uow.query<PayerCandidate>(
      `SELECT c.id, c.name FROM customer_payer_keys k
         JOIN customers c ON c.tenant_id = k.tenant_id AND c.id = k.customer_id
        WHERE k.tenant_id = $1 AND k.kind = $2 AND k.key = $3 AND c.currency = $4
        ORDER BY c.created_at, c.id LIMIT $5`,
      [tenantId, query.kind, query.key, query.currency, query.limit],
    );
  }
}
