import { ReferenceCandidate } from '../domain/matching/invoice-reference.parser';
import { MatchCandidate, MatchCandidateSource, PayerCandidate } from '../domain/matching/match-candidate';

/** Port: where automatic matching reads one tenant's candidate invoices (without locks). */
export abstract class MatchCandidates {
  abstract forTenant(tenantId: string): MatchCandidateSource;
}

/**
 * Port: serialises automatic matching for one customer until the transaction ends, so that
 * concurrent payments of one customer decide one after the other on fresh figures.
 */
export abstract class CustomerMatchingLock {
  /** Takes the lock, unless this transaction holds it already. */
  abstract lock(tenantId: string, customerId: string): Promise<void>;
  /**
   * The customer's currency (null: no such customer), read in the same round trip as the lock is
   * taken (when there is a customer). For a payment recorded for a given customer and matched
   * automatically: its customer is read first and its matching would lock next, with nothing in
   * between that reads what the lock serialises (invoices); the currency is checked again by the
   * payment's key to its customer when the row is written.
   */
  abstract lockReadingCurrency(tenantId: string, customerId: string): Promise<string | null>;
  /** Several customers in one round trip, in a fixed order (sorted), so two callers cannot deadlock. */
  abstract lockMany(tenantId: string, customerIds: readonly string[]): Promise<void>;
}

/**
 * Reads of a group made before its transaction (PaymentGroupPlanner), for it to decide on instead of
 * reading them again: each input's named invoices, and the payer look-ups by payerKey(). Like the
 * reads the transaction would make, they are made without locks: what is chosen is locked and checked.
 */
export interface GroupReads {
  named: readonly (readonly MatchCandidate[])[];
  payers: ReadonlyMap<string, PayerCandidate[]>;
}

/** The key of one payer look-up in GroupReads.payers. */
export function payerKey(kind: string, key: string, currency: string): string {
  return `${kind}\u0000${key}\u0000${currency}`;
}

/** What the policy's `named` is asked for one payment. */
export interface NamedQuery {
  ids: string[];
  numbers: string[];
  references: ReferenceCandidate[];
}

/**
 * Port: the reads of automatic matching for a whole group of payments (a bank import group) in
 * one statement each, answering exactly what MatchCandidateSource would answer per payment.
 */
export abstract class GroupMatchCandidates {
  /**
   * For each query, what `named` answers (same invoices, same order, same bound); null when the
   * group names more invoices than a set-wise read takes (the caller then goes payment by payment).
   */
  abstract named(tenantId: string, queries: readonly NamedQuery[]): Promise<MatchCandidate[][] | null>;
  /** For each query, what `payers` answers. */
  abstract payers(tenantId: string, queries: readonly { kind: 'account' | 'name'; key: string; currency: string }[]): Promise<PayerCandidate[][]>;
  /**
   * What `pool` answers (without `oldestFirst`), each of its parts read `extra` invoices further:
   * room for the invoices this group has changed and the database does not show yet.
   */
  abstract pool(
    tenantId: string,
    query: { customerId: string; currency: string; amount: number; nearWithin: number },
    extra: number,
  ): Promise<MatchCandidate[]>;
}
