import { BankCredit, BankFileFormat, BankFileItem } from './bank-entry';

export type BankStatementStatus = 'processing' | 'completed';
/** Stable public event name (contract §10). */
export const BANK_STATEMENT_COMPLETED = 'bank_statement.completed';
export type ImportedMatchStatus = 'matched' | 'partial' | 'unmatched' | 'needs_review';

/** One entry of the file that could not be read (§14 `errors`). */
export interface BankEntryProblem {
  /** the entry's 1-based number in the file */
  entry: number;
  code: string;
  message: string;
}

/** The import resource of contract §14. */
export interface BankStatementJson {
  id: string;
  status: BankStatementStatus;
  format: BankFileFormat;
  entries_total: number;
  entries_processed: number;
  payments_created: number;
  payments_existing: number;
  entries_skipped: number;
  matched: number;
  needs_review: number;
  unmatched: number;
  errors: BankEntryProblem[];
  created_at: string;
  completed_at: string | null;
}

/**
 * A file whose entries are mostly unreadable is not a bank file of the format named: beyond this
 * many bad entries it is refused as a whole (422), which also bounds the import's `errors`.
 */
export const MAX_ENTRY_ERRORS = 1000;

/**
 * What parsing a file found, counted as it streams by: every entry is one of a credit to stage,
 * a skipped entry (debit, reversal, not booked) or a bad entry. `entries_total` is their sum.
 */
export class BankFileTally {
  total = 0;
  skipped = 0;
  credits = 0;
  readonly errors: BankEntryProblem[] = [];

  /** Counts the item; returns the credit to stage, if it is one. */
  add(item: BankFileItem): BankCredit | null {
    this.total++;
    if (item.kind === 'skipped') this.skipped++;
    else if (item.kind === 'error') this.errors.push({ entry: item.position, code: item.code, message: item.message });
    else {
      this.credits++;
      return item.entry;
    }
    return null;
  }

  get tooManyErrors(): boolean {
    return this.errors.length > MAX_ENTRY_ERRORS;
  }
}

/**
 * An entry's identity within the tenant (§14): the statement account with the bank's entry id,
 * or — for formats without one — with its booking date, amount and position in the file.
 */
export function entryKey(credit: BankCredit): string {
  return credit.bankEntryId !== null ? `id:${credit.bankEntryId}` : `pos:${credit.bookingDate}:${credit.amount}:${credit.position}`;
}
