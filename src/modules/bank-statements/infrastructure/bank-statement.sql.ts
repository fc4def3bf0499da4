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
