import { isOpenInvoice } from '../../../../shared/domain/receivable';
import { ReferenceCandidate } from './invoice-reference.parser';

/** An invoice as the matching policy sees it: a read snapshot, not the aggregate. */
export interface MatchCandidate {
  readonly id: string;
  readonly number: string;
  readonly customerId: string;
  readonly currency: string;
  readonly status: string;
  readonly amountDue: number;
  readonly dueDate: string;
  readonly disputed: boolean;
}

/** Open as everywhere else (shared/domain/receivable.ts). */
export function isOpen(c: MatchCandidate): boolean {
  return isOpenInvoice(c);
}

/** Oldest due first, ties by id (ids are time-sortable): the one order every rule uses. */
export function byDueDate(a: MatchCandidate, b: MatchCandidate): number {
  return a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A customer a payer may be (contract §14). */
export interface PayerCandidate {
  readonly id: string;
  readonly name: string;
}

/**
 * Where the policy gets invoices from (a port: the application implements it with SQL).
 * Only what a rule needs is asked for, and only when an earlier rule did not apply.
 */
export interface MatchCandidateSource {
  /**
   * The tenant's invoices (any customer, any status) with one of these ids, one of these
   * numbers (case-insensitive), or a number that fits one of the reference candidates.
   */
  named(query: { ids: string[]; numbers: string[]; references: ReferenceCandidate[] }): Promise<MatchCandidate[]>;
  /**
   * The customer's open, undisputed invoices in the currency, as far as rules 3–5 can need
   * them: every one whose amount due equals `amount` (up to 10 are enough to show ambiguity),
   * the COMBINATION_POOL_SIZE oldest, and when `oldestFirst` the oldest up to the point where
   * their amounts due reach `amount`, and (short-pay tolerance, §13) up to 10 whose amount due
   * exceeds `amount` by at most `nearWithin`. Over that subset the rules decide exactly as over all.
   */
  pool(query: { customerId: string; currency: string; amount: number; oldestFirst: boolean; nearWithin?: number }): Promise<MatchCandidate[]>;
  /**
   * The customers (in the currency) whose payer account (`account`) or normalised name or alias
   * (`name`) equals `key`: up to MAX_SUGGESTIONS + 1, enough to tell one from several.
   */
  payers(query: { kind: 'account' | 'name'; key: string; currency: string }): Promise<PayerCandidate[]>;
}
