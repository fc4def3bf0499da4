import { MatchCandidate, MatchCandidateSource, PayerCandidate } from '../../../src/modules/payments/domain/matching/match-candidate';
import { PaymentToMatch } from '../../../src/modules/payments/domain/matching/cash-matching.policy';

let seq = 0;

/** An open invoice of customer `cus_a` in usd, due in January, unless told otherwise. */
export function anInvoice(overrides: Partial<MatchCandidate> = {}): MatchCandidate {
  seq++;
  const n = String(seq).padStart(6, '0');
  return {
    id: `inv_${n}`,
    number: `INV-${n}`,
    customerId: 'cus_a',
    currency: 'usd',
    status: 'open',
    amountDue: 10_000,
    dueDate: `2025-01-${String((seq % 28) + 1).padStart(2, '0')}`,
    disputed: false,
    ...overrides,
  };
}

export function aPayment(overrides: Partial<PaymentToMatch> = {}): PaymentToMatch {
  return { amount: 10_000, currency: 'usd', customerId: 'cus_a', autoMatch: 'strict', remittance: [], reference: null, ...overrides };
}

/**
 * A MatchCandidateSource that answers with every invoice it holds, whatever is asked: the most
 * the SQL source (infrastructure/sql-match-candidate.source.ts) may return, so the policy's own
 * rules are what these tests exercise — not a copy of the SQL's filters. What the SQL source
 * really returns is tested against PostgreSQL (test/e2e/payments/match-candidates.e2e-spec.ts).
 * Drafts are never candidates of any kind (the one thing the SQL guarantees that the policy relies on).
 * Counts calls so tests can see that later rules do not load data an earlier rule made unnecessary.
 */
export class InMemoryCandidates implements MatchCandidateSource {
  calls = { named: 0, pool: 0, payers: 0 };
  constructor(
    readonly invoices: MatchCandidate[],
    /** customers with the normalised payer keys they are found by */
    readonly customers: (PayerCandidate & { currency: string; accounts: string[]; names: string[] })[] = [],
  ) {}

  async payers(q: Parameters<MatchCandidateSource['payers']>[0]): Promise<PayerCandidate[]> {
    this.calls.payers++;
    return this.customers
      .filter((c) => c.currency === q.currency && (q.kind === 'account' ? c.accounts : c.names).includes(q.key))
      .map(({ id, name }) => ({ id, name }));
  }

  async named(): Promise<MatchCandidate[]> {
    this.calls.named++;
    return this.invoices.filter((i) => i.status !== 'draft');
  }

  async pool(): Promise<MatchCandidate[]> {
    this.calls.pool++;
    return this.invoices.filter((i) => i.status !== 'draft');
  }
}
