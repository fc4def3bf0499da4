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

  async findMany(
    tenantId: string,
    queries: readonly { kind: 'account' | 'name'; key: string; currency: string }[],
    limit: number,
  ): Promise<PayerCandidate[][]> {
    if (queries.length === 0) return [];
    const rows = await this.uow.query<{ n: string; id: string; name: string }>(
      `SELECT q.n, p.id, p.name
         FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS q (kind, key, currency, n)
        CROSS JOIN LATERAL (
              SELECT c.id, c.name, c.created_at FROM customer_payer_keys k
                JOIN customers c ON c.tenant_id = k.tenant_id AND c.id = k.customer_id
               WHERE k.tenant_id = $1 AND k.kind = q.kind AND k.key = q.key AND c.currency = q.currency
               ORDER BY c.created_at, c.id LIMIT $5) p
        ORDER BY q.n, p.created_at, p.id`,
      [tenantId, queries.map((q) => q.kind), queries.map((q) => q.key), queries.map((q) => q.currency), limit],
    );
    const answers = queries.map((): PayerCandidate[] => []);
    for (const row of rows) answers[Number(row.n) - 1].push({ id: row.id, name: row.name });
    return answers;
  }
}
