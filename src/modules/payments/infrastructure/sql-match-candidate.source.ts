import { Injectable } from '@nestjs/common';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { MatchCandidates } from '../application/matching-ports';
import { openInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { PayerDirectory } from '../../customers';
import { COMBINATION_POOL_SIZE } from '../domain/matching/combination-search';
import { MAX_SUGGESTIONS } from '../domain/matching/cash-matching.policy';
import { MatchCandidate, MatchCandidateSource } from '../domain/matching/match-candidate';

export interface CandidateRow {
  id: string;
  number: string;
  customer_id: string;
  currency: string;
  status: string;
  amount_due: string;
  due_on: string;
  disputed: boolean;
}

// due_on, not due_date: an output column named due_date would make `ORDER BY due_date` sort the text
// instead of walking the (…, due_date, id) index.
export const COLUMNS = `id, number, customer_id, currency, status, amount_due, to_char(due_date, 'YYYY-MM-DD') AS due_on,
  dispute_status IS NOT DISTINCT FROM 'open' AS disputed`;
/** The customer's open, undisputed invoices in one currency ($1 tenant, $2 customer, $3 currency): served by invoices_open_idx. */
export const OPEN_FOR_CUSTOMER = `tenant_id = $1 AND customer_id = $2 AND currency = $3 AND ${openInvoiceSql('')}
  AND dispute_status IS DISTINCT FROM 'open'`;
/** Same expressions as the invoices_number_*_idx indexes (and invoiceNumberKeys() in the domain). */
export const ALNUM_KEY = `lower(regexp_replace(number, '[^A-Za-z0-9]', '', 'g'))`;
export const DIGITS_KEY = `regexp_replace(substring(number from '^[A-Za-z]*[^A-Za-z0-9]*([0-9]+)$'), '^0+(?=[0-9])', '')`;
/** A reference naming more invoices than this is not a remittance advice anyone can act on automatically. */
export const MAX_NAMED = 500;
const OLDEST_FIRST_BATCH = 200;

/** Lists up to this long are written as `IN ($n, …)`; longer ones as one array parameter. */
const MAX_LISTED = 8;

/**
 * `expr IN ($n, …)` (the values appended to `params`), or null for no values. A list of scalar
 * parameters, not `= ANY($n::text[])`: PostgreSQL costs an array parameter's generic plan for
 * ten elements, so a prepared statement never settles on its generic plan and plans each
 * execution afresh (0.2 ms, more than the lookup, on every auto-matched payment). With the
 * values listed the generic plan costs what the custom one does, and is reused. Each list
 * length is a statement text of its own; long lists (rare) share the array form.
 */
function anyOf(expr: string, values: readonly string[], params: unknown[]): string | null {
  if (values.length === 0) return null;
  if (values.length > MAX_LISTED) {
    params.push(values);
    return `${expr} = ANY($${params.length}::text[])`;
  }
  const placeholders = values.map((v) => (params.push(v), `$${params.length}`));
  return `${expr} IN (${placeholders.join(', ')})`;
}

export const toCandidate = (r: CandidateRow): MatchCandidate => ({
  id: r.id,
  number: r.number,
  customerId: r.customer_id,
  currency: r.currency,
  status: r.status,
  amountDue: toSafeNumber(r.amount_due),
  dueDate: r.due_on,
  disputed: r.disputed,
});

/**
 * Reads matching candidates straight from the invoices table (a read model: no aggregates,
 * no locks). Whatever is chosen is locked and re-checked by the caller before money moves.
 */
@Injectable()
export class SqlMatchCandidateSource extends MatchCandidates {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly payerDirectory: PayerDirectory,
  ) {
    super();
  }

  forTenant(tenantId: string): MatchCandidateSource {
    return {
      named: async ({ ids, numbers, references }) => {
        const exactKeys = [...new Set(references.map((r) => r.exactKey))];
        const digitKeys = [...new Set(references.flatMap((r) => (r.digits === null ? [] : [r.digits])))];
        const params: unknown[] = [tenantId];
        const keys = [
          anyOf('id', ids, params),
          anyOf('lower(number)', numbers.map((n) => n.trim().toLowerCase()), params),
          anyOf(ALNUM_KEY, exactKeys, params),
          anyOf(DIGITS_KEY, digitKeys, params),
        ].filter((k) => k !== null);
        if (keys.length === 0) return [];
        const rows = await this.uow.query<CandidateRow>(
          `SELECT ${COLUMNS} FROM invoices
            WHERE tenant_id = $1 AND status <> 'draft' AND (${keys.join(' OR ')})
            ORDER BY due_date, id LIMIT ${MAX_NAMED}`,
          params,
        );
        return rows.map(toCandidate);
      },

      pool: async ({ customerId, currency, amount, oldestFirst, nearWithin = 0 }) => {
        // Near ones (short-pay tolerance) only when it is on: their own part, so they never crowd out exact ones.
        const near =
          nearWithin > 0
            ? `UNION
           (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due > $4 AND amount_due <= $4 + $5::bigint
             ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1})`
            : '';
        const rows = await this.uow.query<CandidateRow>(
          `(SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} ORDER BY due_date, id LIMIT ${COMBINATION_POOL_SIZE})
           UNION
           (SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND amount_due = $4 ORDER BY due_date, id LIMIT ${MAX_SUGGESTIONS + 1})
           ${near}`,
          nearWithin > 0 ? [tenantId, customerId, currency, amount, nearWithin] : [tenantId, customerId, currency, amount],
        );
        const pool = rows.map(toCandidate);
        if (oldestFirst) pool.push(...(await this.oldestRun(tenantId, customerId, currency, amount, pool)));
        // The parts overlap (an exact-amount invoice may be among the oldest): each invoice once.
        return [...new Map(pool.map((c) => [c.id, c])).values()];
      },

      payers: (query) => this.payerDirectory.find(tenantId, { ...query, limit: MAX_SUGGESTIONS + 1 }),
    };
  }

  /** The oldest invoices until their amounts due reach `amount`, read in keyset batches past the ones already loaded. */
  private async oldestRun(tenantId: string, customerId: string, currency: string, amount: number, loaded: MatchCandidate[]): Promise<MatchCandidate[]> {
    const oldest = [...loaded].sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id < b.id ? -1 : 1)).slice(0, COMBINATION_POOL_SIZE);
    let covered = oldest.reduce((sum, c) => sum + c.amountDue, 0);
    if (oldest.length < COMBINATION_POOL_SIZE || covered >= amount) return [];
    const more: MatchCandidate[] = [];
    let last = oldest[oldest.length - 1];
    while (covered < amount) {
      const rows = await this.uow.query<CandidateRow>(
        `SELECT ${COLUMNS} FROM invoices WHERE ${OPEN_FOR_CUSTOMER} AND (due_date, id) > ($4::date, $5)
          ORDER BY due_date, id LIMIT ${OLDEST_FIRST_BATCH}`,
        [tenantId, customerId, currency, last.dueDate, last.id],
      );
      for (const row of rows) {
        const c = toCandidate(row);
        more.push(c);
        covered += c.amountDue;
        if (covered >= amount) break;
      }
      if (rows.length < OLDEST_FIRST_BATCH) break;
      last = more[more.length - 1];
    }
    return more;
  }
}
