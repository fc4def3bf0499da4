import { formatMinor } from '../../../../shared/domain/money';
import { normalizePayerAccount, normalizePayerName } from '../../../../shared/domain/payer';
import { COMBINATION_POOL_SIZE, findSmallestCombinations } from './combination-search';
import { parseInvoiceReferences, resolveReferenceCandidates } from './invoice-reference.parser';
import { byDueDate, isOpen, MatchCandidate, MatchCandidateSource, PayerCandidate } from './match-candidate';

export type AutoMatchMode = 'strict' | 'oldest_first' | 'none';
export type MatchRule = 'remittance' | 'reference' | 'exact_amount' | 'combination' | 'oldest_first';
/** Steps of customer identification (§14) that can leave a payment for review: the payer fits several customers. */
export type ReviewRule = 'payer_account' | 'payer_name';
/** How the policy found the customer of a payment that came without one. */
export type IdentifiedBy = 'remittance' | 'reference' | ReviewRule;

/** A candidate for a person to confirm (§8): what, whose, how likely, and why, in words. */
export interface MatchSuggestion {
  invoice_ids: string[];
  rule: MatchRule | ReviewRule;
  /** the customer the invoices are of (or, for a payer that fits several customers, one of them) */
  customer_id: string | null;
  /** 0–1: this suggestion's share among the equally plausible ones */
  confidence: number;
  /** a sentence a clerk can read */
  reason: string;
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
  /** who paid, when known: identifies the customer of a payment that has none (§14) */
  payer?: { name: string | null; account: string | null } | null;
  /** the tenant's `payer_name_matching` setting (§13) */
  payerNameMatching?: boolean;
  /**
   * The tenant's short-pay tolerance (§13): how far short of `amountDue` a payment may be and
   * still settle it. Absent or 0: no short pay is settled.
   */
  shortPayTolerance?: ShortPayTolerance;
}

/** §13: `min(amount, floor(percent × amountDue / 100))`, 0 when disabled; `max` bounds it for any amount due. */
export interface ShortPayTolerance {
  of(amountDue: number): number;
  /** the tolerance's amount cap (0 when disabled): no shortfall beyond it is ever settled */
  readonly max: number;
}

export interface Allocation {
  invoiceId: string;
  amount: number;
}

/** A customer the policy identified for a payment without one, and how (§14). */
export interface Identification {
  customerId: string;
  by: IdentifiedBy;
}

export type MatchDecision =
  | {
      outcome: 'apply';
      rule: MatchRule;
      /** the payment's customer, possibly identified by rules 1–2 or by the payer */
      customerId: string;
      allocations: Allocation[];
      /** the invoices as they were when decided: the caller re-checks them once locked */
      basis: MatchCandidate[];
      /**
       * Short pay settled within the tenant's tolerance (§13): what to write off per invoice
       * (reason `short_pay`) once the allocations are applied. Empty otherwise.
       */
      writeOffs: Allocation[];
      identified?: Identification;
    }
  | { outcome: 'review'; rule: MatchRule | ReviewRule; suggestions: MatchSuggestion[]; identified?: Identification }
  | { outcome: 'unmatched'; identified?: Identification };

export const MAX_SUGGESTIONS = 10;

/**
 * The cash-application rules of contract §8, one at a time, first that applies wins:
 * remittance, reference, exact_amount, combination, oldest_first (only when asked for).
 * Rules 1–2 follow what the payer wrote (they may name disputed invoices and identify the
 * customer); rules 3–4 apply only when the answer is unique. Whenever several answers fit,
 * nothing is applied and the candidates are suggested: auto-matching never guesses with money.
 * The one exception is the payer's own instruction: with `auto_match: "oldest_first"` an
 * ambiguous rule 3 or 4 gives way to rule 5.
 */
export class CashMatchingPolicy {
  /**
   * `beforePool` runs once the customer whose open invoices rules 3–5 read is known (the caller
   * serialises matching per customer there).
   */
  async decide(payment: PaymentToMatch, source: MatchCandidateSource, beforePool?: (customerId: string) => Promise<void>): Promise<MatchDecision> {
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

    let identified: Identification | undefined;
    if (!payment.customerId) {
      const byPayer = await this.identifyPayer(payment, source);
      if (byPayer === null) return { outcome: 'unmatched' };
      if (byPayer.outcome === 'review') return byPayer;
      identified = byPayer.identified;
    }
    const customerId = payment.customerId ?? identified!.customerId;
    await beforePool?.(customerId);
    const decision = await this.poolRules({ ...payment, customerId }, source);
    return identified ? { ...decision, identified } : decision;
  }

  /** Rules 3–5 over the customer's open, undisputed invoices in the payment's currency. */
  private async poolRules(payment: PaymentToMatch & { customerId: string }, source: MatchCandidateSource): Promise<MatchDecision> {
    const pool = (
      await source.pool({
        customerId: payment.customerId,
        currency: payment.currency,
        amount: payment.amount,
        oldestFirst: payment.autoMatch === 'oldest_first',
        nearWithin: payment.shortPayTolerance?.max ?? 0,
      })
    )
      .filter((c) => this.fits(payment, c) && isOpen(c) && !c.disputed)
      .sort(byDueDate);
    const unique = this.exactAmount(payment, pool) ?? this.nearAmount(payment, pool) ?? this.combination(payment, pool);
    if (payment.autoMatch !== 'oldest_first') return unique ?? { outcome: 'unmatched' };
    // The payer asked for oldest first: it applies when rules 3-4 found no unique answer,
    // ambiguous ones included (contract §8) — the payer, not the matcher, chose the order.
    if (unique?.outcome === 'apply') return unique;
    return this.oldestFirst(payment, pool) ?? unique ?? { outcome: 'unmatched' };
  }

  /**
   * §14, after rules 1–2 found nothing: a payer account linked to exactly one customer, else
   * (when the tenant allows it) a payer name equal to exactly one customer's name or alias. A
   * payer that fits several customers identifies none: the candidates go to review, each with
   * what rules 3–4 would take of its invoices. Null: the payer identifies no customer.
   */
  private async identifyPayer(
    payment: PaymentToMatch,
    source: MatchCandidateSource,
  ): Promise<{ outcome: 'identified'; identified: Identification } | Extract<MatchDecision, { outcome: 'review' }> | null> {
    const steps: { by: ReviewRule; key: string | null; what: string }[] = [
      { by: 'payer_account', key: normalizePayerAccount(payment.payer?.account), what: `account ${normalizePayerAccount(payment.payer?.account)}` },
      {
        by: 'payer_name',
        key: payment.payerNameMatching === false ? null : normalizePayerName(payment.payer?.name),
        what: `name "${payment.payer?.name?.trim()}"`,
      },
    ];
    for (const step of steps) {
      if (step.key === null) continue;
      const customers = await source.payers({ kind: step.by === 'payer_account' ? 'account' : 'name', key: step.key, currency: payment.currency });
      if (customers.length === 0) continue;
      if (customers.length === 1) return { outcome: 'identified', identified: { customerId: customers[0].id, by: step.by } };
      return { outcome: 'review', rule: step.by, suggestions: await this.payerSuggestions(payment, source, step, customers) };
    }
    return null;
  }

  /**
   * One suggestion per customer the payer fits, with the invoices rules 3–4 would take for that
   * customer. A customer whose invoices fit the amount counts twice as likely as one whose don't.
   */
  private async payerSuggestions(
    payment: PaymentToMatch,
    source: MatchCandidateSource,
    step: { by: ReviewRule; what: string },
    customers: PayerCandidate[],
  ): Promise<MatchSuggestion[]> {
    const shown = customers.slice(0, MAX_SUGGESTIONS);
    const names = shown.map((c) => c.name).join(', ');
    const fits: { customer: PayerCandidate; invoices: MatchCandidate[]; rule: MatchRule | null; short?: number }[] = [];
    for (const customer of shown) {
      const decision = await this.poolRules({ ...payment, customerId: customer.id, autoMatch: 'strict' }, source);
      fits.push(
        decision.outcome === 'apply'
          ? { customer, invoices: decision.basis, rule: decision.rule, short: decision.writeOffs.reduce((sum, w) => sum + w.amount, 0) }
          : { customer, invoices: [], rule: null },
      );
    }
    const weight = (f: (typeof fits)[number]) => (f.invoices.length > 0 ? 2 : 1);
    const total = fits.reduce((sum, f) => sum + weight(f), 0);
    const several = `The payer's ${step.what} fits ${customers.length} customers (${names}${customers.length > shown.length ? ', …' : ''})`;
    return fits.map((f) => ({
      invoice_ids: f.invoices.map((i) => i.id),
      rule: step.by,
      customer_id: f.customer.id,
      confidence: share(weight(f), total),
      reason:
        f.invoices.length > 0
          ? f.short
            ? `${several}; ${f.customer.name}'s ${numbers(f.invoices)} ${f.invoices.length > 1 ? 'are' : 'is'} due for ${money(payment.amount + f.short, payment.currency)}, within the short-pay tolerance of the ${money(payment.amount, payment.currency)} paid.`
            : `${several}; ${f.customer.name}'s ${numbers(f.invoices)} ${f.invoices.length > 1 ? 'add up to' : 'is due for exactly'} ${money(payment.amount, payment.currency)}.`
          : `${several}; none of ${f.customer.name}'s open invoices fits ${money(payment.amount, payment.currency)} on its own.`,
    }));
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
      const open = ambiguous.map((a) => ({ text: a.text, invoices: a.invoices.filter(isOpen).sort(byDueDate) })).filter((a) => a.invoices.length > 0);
      if (open.length > 0) {
        const suggestions = open.flatMap(({ text, invoices: fitting }) =>
          fitting.map((c) =>
            suggestion([c], 'reference', fitting.length, `"${text}" in the reference fits ${fitting.length} invoices (${numbers(fitting)}); ${due(c)}.`),
          ),
        );
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
      const amount = money(payment.amount, payment.currency);
      const suggestions = exact
        .slice(0, MAX_SUGGESTIONS)
        .map((c) => suggestion([c], 'exact_amount', exact.length, `${due(c)}: one of ${exact.length} open invoices of the customer whose amount due equals ${amount}.`));
      return { outcome: 'review', rule: 'exact_amount', suggestions };
    }
    return this.applyWhole(payment, 'exact_amount', exact);
  }

  /**
   * Rule 3 with the short-pay tolerance (§13), only when no invoice's amount due equals the
   * payment: the one open invoice whose amount due exceeds the payment by at most the
   * tolerance; the difference is written off. Several such invoices: a person chooses.
   */
  nearAmount(payment: PaymentToMatch, pool: MatchCandidate[]): MatchDecision | null {
    const tolerance = payment.shortPayTolerance;
    if (!tolerance || tolerance.max <= 0) return null;
    const near = pool.filter((c) => c.amountDue > payment.amount && c.amountDue - payment.amount <= tolerance.of(c.amountDue));
    if (near.length === 0) return null;
    const amount = money(payment.amount, payment.currency);
    if (near.length > 1) {
      const suggestions = near
        .slice(0, MAX_SUGGESTIONS)
        .map((c) =>
          suggestion(
            [c],
            'exact_amount',
            near.length,
            `${due(c)}: one of ${near.length} open invoices of the customer whose amount due exceeds ${amount} by no more than the short-pay tolerance.`,
          ),
        );
      return { outcome: 'review', rule: 'exact_amount', suggestions };
    }
    const [invoice] = near;
    return {
      outcome: 'apply',
      rule: 'exact_amount',
      customerId: payment.customerId ?? invoice.customerId,
      allocations: [{ invoiceId: invoice.id, amount: payment.amount }],
      basis: [invoice],
      writeOffs: [{ invoiceId: invoice.id, amount: invoice.amountDue - payment.amount }],
    };
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
      const amount = money(payment.amount, payment.currency);
      const count = sets.length >= MAX_SUGGESTIONS ? `${MAX_SUGGESTIONS} or more` : String(sets.length);
      return {
        outcome: 'review',
        rule: 'combination',
        suggestions: sets.map((set) =>
          suggestion(set, 'combination', sets.length, `${numbers(set)} add up to ${amount}; ${count} sets of ${set.length} open invoices do, so a person has to choose.`),
        ),
      };
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
      writeOffs: [],
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
      const suggestions = customers.map((customerId) => {
        const invoices = [...new Map(listed.filter((l) => l.invoice.customerId === customerId).map((l) => [l.invoice.id, l.invoice])).values()];
        return {
          ...suggestion(invoices, rule, customers.length, `The ${rule} names invoices of ${customers.length} customers; ${numbers(invoices)} ${invoices.length > 1 ? 'belong' : 'belongs'} to one of them.`),
          customer_id: customerId,
        };
      });
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
      writeOffs: rule === 'oldest_first' ? [] : this.shortPay(payment, listed, owed, left),
    };
  }

  /**
   * Rules 1–2 with the short-pay tolerance (§13): the payment is used up, every invoice it names
   * took part of it, and what they still owe together is within the tolerance of what they owed
   * together: that rest is written off, invoice by invoice. Otherwise nothing is (a larger
   * shortfall stays due; an over-payment stays the customer's credit).
   */
  private shortPay(
    payment: PaymentToMatch,
    listed: { invoice: MatchCandidate; amount: number | null }[],
    owedAfter: Map<string, number>,
    left: number,
  ): Allocation[] {
    const tolerance = payment.shortPayTolerance;
    if (!tolerance || tolerance.max <= 0 || left !== 0) return [];
    const invoices = [...new Map(listed.map((l) => [l.invoice.id, l.invoice])).values()];
    const short = invoices.map((c) => ({ invoiceId: c.id, amount: owedAfter.get(c.id)! })).filter((w) => w.amount > 0);
    const shortfall = short.reduce((sum, w) => sum + w.amount, 0);
    if (shortfall === 0) return [];
    // An invoice named but given nothing was not paid short: it was not paid.
    if (invoices.some((c) => owedAfter.get(c.id) === c.amountDue)) return [];
    const owed = invoices.reduce((sum, c) => sum + c.amountDue, 0);
    return shortfall <= tolerance.of(owed) ? short : [];
  }
}

/** `n` equally plausible alternatives: each has 1/n (two decimals). */
function share(weight: number, total: number): number {
  return Math.round((weight / total) * 100) / 100;
}

function suggestion(invoices: MatchCandidate[], rule: MatchRule, alternatives: number, reason: string): MatchSuggestion {
  return { invoice_ids: invoices.map((c) => c.id), rule, customer_id: invoices[0]?.customerId ?? null, confidence: share(1, alternatives), reason };
}

function money(amount: number, currency: string): string {
  return `${formatMinor(amount, currency)} ${currency.toUpperCase()}`;
}

function numbers(invoices: readonly MatchCandidate[]): string {
  const list = invoices.map((c) => c.number);
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

function due(c: MatchCandidate): string {
  return `${c.number} (due ${c.dueDate}, ${money(c.amountDue, c.currency)} due)`;
}
