import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { BankFileFormat } from '../domain/bank-entry';
import { BankEntryProblem, BankStatementJson, BankStatementStatus } from '../domain/bank-statement';

/** A bank_statements row as the queries select it. */
export interface BankStatementRow {
  id: string;
  format: BankFileFormat;
  status: BankStatementStatus;
  entries_total: number;
  entries_processed: number;
  payments_created: number;
  payments_existing: number;
  entries_skipped: number;
  matched: number;
  needs_review: number;
  unmatched: number;
  errors: BankEntryProblem[];
  created_at: Date;
  completed_at: Date | null;
}

export const BANK_STATEMENT_COLUMNS = `s.id, s.format, s.status, s.entries_total, s.entries_processed, s.payments_created, s.payments_existing,
  s.entries_skipped, s.matched, s.needs_review, s.unmatched, s.errors, s.created_at, s.completed_at`;

/**
 * The counts the parts of a processing import have recorded (bank_statement_tallies, ADR 0046), as
 * one row `t` for the import (`tenant`, `id`: SQL expressions): sums, and the errors in file order.
 * A completed import has none (folded into its row).
 */
export const TALLIES_OF = (tenant: string, id: string) => `(
  SELECT coalesce(sum(x.entries_processed), 0)::int AS entries_processed, coalesce(sum(x.payments_created), 0)::int AS payments_created,
         coalesce(sum(x.payments_existing), 0)::int AS payments_existing, coalesce(sum(x.matched), 0)::int AS matched,
         coalesce(sum(x.needs_review), 0)::int AS needs_review, coalesce(sum(x.unmatched), 0)::int AS unmatched,
         coalesce((SELECT jsonb_agg(e.value ORDER BY y.first_position, e.n)
                     FROM bank_statement_tallies y, jsonb_array_elements(y.errors) WITH ORDINALITY AS e (value, n)
                    WHERE y.tenant_id = ${tenant} AND y.statement_id = ${id}), '[]'::jsonb) AS errors
    FROM bank_statement_tallies x WHERE x.tenant_id = ${tenant} AND x.statement_id = ${id})`;

/** SET list adding the tallies `t` (TALLIES_OF) to the import row `s`. */
export const TALLIES_FOLDED = `entries_processed = s.entries_processed + t.entries_processed, payments_created = s.payments_created + t.payments_created,
  payments_existing = s.payments_existing + t.payments_existing, matched = s.matched + t.matched, needs_review = s.needs_review + t.needs_review,
  unmatched = s.unmatched + t.unmatched, errors = s.errors || t.errors`;

/** The import `s` as the resource shows it: its row plus its parts' tallies, joined as `t` (BANK_STATEMENT_FROM). */
export const BANK_STATEMENT_READ_COLUMNS = `s.id, s.format, s.status, s.entries_total, s.entries_processed + t.entries_processed AS entries_processed,
  s.payments_created + t.payments_created AS payments_created, s.payments_existing + t.payments_existing AS payments_existing,
  s.entries_skipped, s.matched + t.matched AS matched, s.needs_review + t.needs_review AS needs_review, s.unmatched + t.unmatched AS unmatched,
  s.errors || t.errors AS errors, s.created_at, s.completed_at`;

/** FROM for BANK_STATEMENT_READ_COLUMNS. */
export const BANK_STATEMENT_FROM = `bank_statements s CROSS JOIN LATERAL ${TALLIES_OF('s.tenant_id', 's.id')} t`;

/** The §14 resource from its row. */
export function presentBankStatement(row: BankStatementRow): BankStatementJson {
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    entries_total: toSafeNumber(row.entries_total),
    entries_processed: toSafeNumber(row.entries_processed),
    payments_created: toSafeNumber(row.payments_created),
    payments_existing: toSafeNumber(row.payments_existing),
    entries_skipped: toSafeNumber(row.entries_skipped),
    matched: toSafeNumber(row.matched),
    needs_review: toSafeNumber(row.needs_review),
    unmatched: toSafeNumber(row.unmatched),
    errors: row.errors,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}
