import { COMBINATION_POOL_SIZE, findSmallestCombinations } from './combination-search';
import { parseInvoiceReferences, resolveReferenceCandidates } from './invoice-reference.parser';
import { byDueDate, isOpen, MatchCandidate, MatchCandidateSource } from './match-candidate';

export type AutoMatchMode = 'strict' | 'oldest_first' | 'none';
export type MatchRule = 'remittance' | 'reference' | 'exact_amount' | 'combination' | 'oldest_first';

export interface MatchSuggestion {
  invoice_ids: string[];
  rule: MatchRule;
}

export interface RemittanceLine {
  invoiceId: string | null;
  invoiceNumber: string | null;
  amount: number | null;
}

/** What the policy needs to know about the payment. */
export interface PaymentToMatch {
  /** what is still unapplied, in minor units */
  amount: number;
  currency: string;
  customerId: string | null;
  autoMatch: AutoMatchMode;
  remittance: readonly RemittanceLine[];
  reference: string | null;
}

export interface Allocation {
  invoiceId: string;
  amount: number;
}

export type MatchDecision =
  | {
      outcome: 'apply';
      rule: MatchRule;
      /** the payment's customer, possibly identified by rules 1–2 */
      customerId: string;
      allocations: Allocation[];
      /** the invoices as they were when decided: the caller re-checks them once locked */
      basis: MatchCandidate[];
    }
  | { outcome: 'review'; rule: MatchRule; suggestions: MatchSuggestion[] }
  | { outcome: 'unmatched' };

export const MAX_SUGGESTIONS = 10;

/**
 * The cash-application rules of contract §8, one at a time, first that applies wins:
 * remittance, reference, exact_amount, combination, oldest_first (only when asked for).
 * Rules 1–2 follow what the payer wrote (they may name disputed invoices and identify the
 * customer); rules 3–4 apply only when the answer is unique. Whenever several answers fit,
 * nothing is applied and the candidates are suggested: auto-matching never guesses with money.
 */
export class CashMatchingPolicy {
  async decide(payment: PaymentToMatch, source: MatchCandidateSource): Promise<MatchDecision> {
    if (payment.autoMatch === 'none' || payment.amount <= 0) return { outcome: 'unmatched' };

    const references = parseInvoiceReferences(payment.reference);
    const ids = payment.remittance.flatMap((l) => (l.invoiceId ? [l.invoiceId] : []));
    const numbers = payment.remittance.flatMap((l) => (l.invoiceNumber ? [l.invoiceNumber] : []));
    if (ids.length + numbers.length + references.length > 0) {
      const named = (await source.named({ ids, numbers, references })).filter((c) => this.fits(payment, c));
      const byRemittance = this.remittance(payment, named);
      if (byRemittance) return byRemittance;
      const byReference = this.reference(payment, named, references);
      if (byReference) return byReference;
    }

    if (!payment.customerId) return { outcome: 'unmatched' };
    const pool = (
      await source.pool({
        customerId: payment.customerId,
        currency: payment.currency,
        amount: payment.amount,
        oldestFirst: payment.autoMatch === 'oldest_first',
      })
    )
      .filter((c) => this.fits(payment, c) && isOpen(c) && !c.disputed)
      .sort(byDueDate);
    return (
      this.exactAmount(payment, pool) ??
      this.combination(payment, pool) ??
      (payment.autoMatch === 'oldest_first' ? this.oldestFirst(payment, pool) : null) ?? { outcome: 'unmatched' }
    );
  }

  /** Rule 1: the listed invoices, in the order listed, the amount given or what is due. */
  remittance(payment: PaymentToMatch, named: MatchCandidate[]): MatchDecision | null {
    const listed: { invoice: MatchCandidate; amount: number | null }[] = [];
    for (const line of payment.remittance) {
      const invoice = line.invoiceId
        ? named.find((c) => c.id === line.invoiceId)
        : named.find((c) => c.number.toLowerCase() === line.invoiceNumber!.trim().toLowerCase());
      if (invoice && isOpen(invoice)) listed.push({ invoice, amount: line.amount });
    }
    return this.allocate(payment, 'remittance', listed);
  }

  /** Rule 2: invoice numbers found in the reference text, oldest due first. */
  reference(payment: PaymentToMatch, named: MatchCandidate[], references = parseInvoiceReferences(payment.reference)): MatchDecision | null {
    if (references.length === 0) return null;
    // Resolve against every invoice of the tenant the payment could belong to (not only open
    // ones), so `#123` naming a paid invoice never falls through to another open one.
    const { invoices, ambiguous } = resolveReferenceCandidates(references, named);
    if (ambiguous.length > 0) {
      const open = ambiguous.map((a) => a.invoices.filter(isOpen)).filter((list) => list.length > 0);
      if (open.length > 0) {
        const suggestions = open.flatMap((list) => list.sort(byDueDate).map((c) => ({ invoice_ids: [c.id], rule: 'reference' as const })));
        return { outcome: 'review', rule: 'reference', suggestions: suggestions.slice(0, MAX_SUGGESTIONS) };
      }
    }
    const listed = invoices.filter(isOpen).sort(byDueDate).map((invoice) => ({ invoice, amount: null }));
    return this.allocate(payment, 'reference', listed);
  }

  /** Rule 3: the one open invoice whose amount due equals the payment. */
  exactAmount(payment: PaymentToMatch, pool: MatchCandidate[]): MatchDecision | null {
    const exact = pool.filter((c) => c.amountDue === payment.amount);
    if (exact.length === 0) return null;
    if (exact.length > 1) {
      const suggestions = exact.slice(0, MAX_SUGGESTIONS).map((c) => ({ invoice_ids: [c.id], rule: 'exact_amount' as const }));
      return { outcome: 'review', rule: 'exact_amount', suggestions };
    }
    return this.applyWhole(payment, 'exact_amount', exact);
  }

  /** Rule 4: the one smallest set (2–5 invoices among the 50 oldest) whose amounts due sum to the payment. */
  combination(payment: PaymentToMatch, pool: MatchCandidate[]): MatchDecision | null {
    const oldest = pool.slice(0, COMBINATION_POOL_SIZE);
    const result = findSmallestCombinations(
      oldest.map((c) => c.amountDue),
      payment.amount,
      { minSize: 2, maxSolutions: MAX_SUGGESTIONS },
    );
    if (result.sets.length === 0) return null;
    const sets = result.sets.map((set) => set.map((i) => oldest[i]));
    if (sets.length > 1) {
      return { outcome: 'review', rule: 'combination', suggestions: sets.map((set) => ({ invoice_ids: set.map((c) => c.id), rule: 'combination' as const })) };
    }
    return this.applyWhole(payment, 'combination', sets[0]);
  }

  /** Rule 5 (only with auto_match "oldest_first"): oldest due first until the payment is used up. */
  oldestFirst(payment: PaymentToMatch, pool: MatchCandidate[]): MatchDecision | null {
    return this.allocate(payment, 'oldest_first', pool.map((invoice) => ({ invoice, amount: null })));
  }

  /** Same tenant is given; same currency always; same customer when the payment has one. */
  private fits(payment: PaymentToMatch, c: MatchCandidate): boolean {
    return c.currency === payment.currency && (payment.customerId === null || c.customerId === payment.customerId);
  }

  private applyWhole(payment: PaymentToMatch, rule: MatchRule, invoices: MatchCandidate[]): MatchDecision {
    return {
      outcome: 'apply',
      rule,
      customerId: payment.customerId ?? invoices[0].customerId,
      allocations: invoices.map((c) => ({ invoiceId: c.id, amount: c.amountDue })),
      basis: invoices,
    };
  }

  /**
   * Applies in order, each invoice the amount given (or its amount due), never more than it
   * still owes or than the payment has left. A payment without a customer takes the customer
   * of the invoices it names; invoices of several customers are for a person to sort out.
   */
  private allocate(payment: PaymentToMatch, rule: MatchRule, listed: { invoice: MatchCandidate; amount: number | null }[]): MatchDecision | null {
    if (listed.length === 0) return null;
    const customers = [...new Set(listed.map((l) => l.invoice.customerId))];
    if (customers.length > 1) {
      const suggestions = customers.map((customerId) => ({
        invoice_ids: [...new Set(listed.filter((l) => l.invoice.customerId === customerId).map((l) => l.invoice.id))],
        rule,
      }));
      return { outcome: 'review', rule, suggestions: suggestions.slice(0, MAX_SUGGESTIONS) };
    }
    let left = payment.amount;
    const owed = new Map(listed.map((l) => [l.invoice.id, l.invoice.amountDue]));
    const amounts = new Map<string, number>();
    for (const { invoice, amount } of listed) {
      if (left === 0) break;
      const take = Math.min(amount ?? invoice.amountDue, owed.get(invoice.id)!, left);
      if (take <= 0) continue;
      owed.set(invoice.id, owed.get(invoice.id)! - take);
      amounts.set(invoice.id, (amounts.get(invoice.id) ?? 0) + take);
      left -= take;
    }
    if (amounts.size === 0) return null;
    const basis = listed.map((l) => l.invoice).filter((c, i, all) => amounts.has(c.id) && all.indexOf(c) === i);
    return {
      outcome: 'apply',
      rule,
      customerId: customers[0],
      allocations: [...amounts].map(([invoiceId, amount]) => ({ invoiceId, amount })),
      basis,
    };
  }
}
