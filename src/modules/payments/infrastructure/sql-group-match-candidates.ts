import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { PayerDirectory } from '../../customers';
import { GroupMatchCandidates, NamedQuery } from '../application/matching-ports';
import { MAX_SUGGESTIONS } from '../domain/matching/cash-matching.policy';
import { COMBINATION_POOL_SIZE } from '../domain/matching/combination-search';
import { MatchCandidate, PayerCandidate } from '../domain/matching/match-candidate';
import { ALNUM_KEY, CandidateRow, COLUMNS, DIGITS_KEY, MAX_NAMED, OPEN_FOR_CUSTOMER, toCandidate } from './sql-match-candidate.source';

/** A group naming more invoices than this (all its payments together) is read payment by payment. */
const MAX_GROUP_NAMED = 20_000;

/** `named` order: due date, then id (as `ORDER BY due_date, id` on ids of one shape). */
function byDueThenId(a: MatchCandidate, b: MatchCandidate): number {
  return a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The reads of SqlMatchCandidateSource for a whole group: one statement for every payment's
 * named invoices (each key kind joined on its own index), one for every payer look-up.
 */
@Injectable()
export class SqlGroupMatchCandidates extends GroupMatchCandidates {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly payerDirectory: PayerDirectory,
  ) {
    super();
  }

  async named(tenantId: string, queries: readonly NamedQuery[]): Promise<MatchCandidate[][] | null> {
    const n: number[] = [];
    const kind: string[] = [];
    const key: string[] = [];
    const add = (i: number, k: string, value: string) => {
      n.push(i);
      kind.push(k);
      key.push(value);
    };
    queries.forEach((q, i) => {
      for (const id of new Set(q.ids)) add(i, 'id', id);
      for (const number of new Set(q.numbers.map((v) => v.trim().toLowerCase()))) add(i, 'number', number);
      for (const exact of new Set(q.references.map((r) => r.exactKey))) add(i, 'alnum', exact);
      for (const digits of new Set(q.references.flatMap((r) => (r.digits === null ? [] : [r.digits])))) add(i, 'digits', digits);
    });
    const answers = queries.map((): MatchCandidate[] => []);
    if (n.length === 0) return answers;
    const branch = (k: string, on: string) =>
      `SELECT q.n, ${COLUMNS} FROM q JOIN invoices ON tenant_id = $1 AND ${on} WHERE q.kind = '${k}' AND status <> 'draft'`;
    const rows = await this.uow.query<CandidateRow & { n: number }>(
      `WITH q AS (SELECT * FROM unnest($2::int[], $3::text[], $4::text[]) AS q (n, kind, key))
       ${branch('id', 'id = q.key')}
       UNION ${branch('number', 'lower(number) = q.key')}
       UNION ${branch('alnum', `${ALNUM_KEY} = q.key`)}
       UNION ${branch('digits', `${DIGITS_KEY} = q.key`)}
       LIMIT ${MAX_GROUP_NAMED + 1}`,
      [tenantId, n, kind, key],
    );
    if (rows.length > MAX_GROUP_NAMED) return null;
    for (const row of rows) answers[row.n].push(toCandidate(row));
    return answers.map((list) => list.sort(byDueThenId).slice(0, MAX_NAMED));
  }

  payers(tenantId: string, queries: readonly { kind: 'account' | 'name'; key: string; currency: string }[]): Promise<PayerCandidate[][]> {
    return this.payerDirectory.findMany(tenantId, queries, MAX_SUGGESTIONS + 1);
  }

  async pool(
    tenantId: string,
    { customerId, currency, amount, nearWithin }: { customerId: string; currency: string; amount: number; nearWithin: number },
    extra: number,
  ): Promise<MatchCandidate[]> {
    const near =
      nearWithin > 0
        ? `UNION
         (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due > $4 AND amount_due <= $4 + $6::bigint
           ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1} + $5::int)`
        : '';
    const rows = await this.uow.query<CandidateRow>(
      `(SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} ORDER BY due_date, id LIMIT ${COMBINATION_POOL_SIZE} + $5::int)
       UNION
       (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due = $4 ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1} + $5::int)
       ${near}`,
      nearWithin > 0 ? [tenantId, customerId, currency, amount, extra, nearWithin] : [tenantId, customerId, currency, amount, extra],
    );
    return rows.map(toCandidate);
  }
}
