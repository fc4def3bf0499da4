import { invoiceNumberKeys, candidateMatches } from '../../../src/modules/payments/domain/matching/invoice-reference.parser';
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
 * In-memory MatchCandidateSource over a tenant's invoices, answering as the SQL adapter does.
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

  async named(q: Parameters<MatchCandidateSource['named']>[0]): Promise<MatchCandidate[]> {
    this.calls.named++;
    const numbers = q.numbers.map((n) => n.toLowerCase());
    return this.invoices.filter(
      (i) =>
        q.ids.includes(i.id) ||
        numbers.includes(i.number.toLowerCase()) ||
        q.references.some((r) => candidateMatches(r, invoiceNumberKeys(i.number)) !== null),
    );
  }

  async pool(q: Parameters<MatchCandidateSource['pool']>[0]): Promise<MatchCandidate[]> {
    this.calls.pool++;
    return this.invoices.filter((i) => i.customerId === q.customerId && i.currency === q.currency && ['open', 'partially_paid'].includes(i.status) && !i.disputed);
  }
}
