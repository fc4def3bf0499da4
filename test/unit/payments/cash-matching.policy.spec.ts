import { CashMatchingPolicy, MatchDecision } from '../../../src/modules/payments/domain/matching/cash-matching.policy';
import { MatchCandidate } from '../../../src/modules/payments/domain/matching/match-candidate';
import { aPayment, anInvoice, InMemoryCandidates } from './match-candidate.mother';

const policy = new CashMatchingPolicy();

function decide(payment: ReturnType<typeof aPayment>, invoices: MatchCandidate[]) {
  const source = new InMemoryCandidates(invoices);
  return { source, result: policy.decide(payment, source) };
}

function applied(decision: MatchDecision) {
  if (decision.outcome !== 'apply') throw new Error(`expected apply, got ${JSON.stringify(decision)}`);
  return { rule: decision.rule, customerId: decision.customerId, allocations: decision.allocations.map((a) => [a.invoiceId, a.amount]) };
}

describe('cash matching policy', () => {
  describe('rule 1: remittance', () => {
    it('applies the listed invoices in order, amounts as given or their amount due', async () => {
      const a = anInvoice({ amountDue: 5_000 });
      const b = anInvoice({ amountDue: 8_000 });
      const c = anInvoice({ amountDue: 3_000 });
      const payment = aPayment({
        amount: 10_000,
        remittance: [
          { invoiceId: b.id, invoiceNumber: null, amount: 4_000 },
          { invoiceId: null, invoiceNumber: a.number.toLowerCase(), amount: null },
          { invoiceId: c.id, invoiceNumber: null, amount: null },
        ],
      });
      const { result, source } = decide(payment, [a, b, c]);
      expect(applied(await result)).toEqual({ rule: 'remittance', customerId: 'cus_a', allocations: [[b.id, 4_000], [a.id, 5_000], [c.id, 1_000]] });
      expect(source.calls.pool).toBe(0);
    });

    it('never applies more than an invoice owes, leaving the rest unapplied', async () => {
      const a = anInvoice({ amountDue: 5_000 });
      const payment = aPayment({ amount: 9_000, remittance: [{ invoiceId: a.id, invoiceNumber: null, amount: 9_000 }] });
      expect(applied(await decide(payment, [a]).result).allocations).toEqual([[a.id, 5_000]]);
    });

    it('applies to a disputed invoice the payer names', async () => {
      const a = anInvoice({ disputed: true });
      const payment = aPayment({ remittance: [{ invoiceId: a.id, invoiceNumber: null, amount: null }] });
      expect(applied(await decide(payment, [a]).result).allocations).toEqual([[a.id, 10_000]]);
    });

    it('ignores invoices of another customer, another currency or not open, and moves on to the next rule', async () => {
      const other = anInvoice({ customerId: 'cus_b' });
      const eur = anInvoice({ currency: 'eur' });
      const paid = anInvoice({ status: 'paid', amountDue: 0 });
      const exact = anInvoice({ amountDue: 10_000 });
      const payment = aPayment({
        remittance: [other, eur, paid].map((i) => ({ invoiceId: i.id, invoiceNumber: null, amount: null })),
      });
      expect(applied(await decide(payment, [other, eur, paid, exact]).result)).toMatchObject({ rule: 'exact_amount', allocations: [[exact.id, 10_000]] });
    });

    it('identifies the customer of a payment that has none', async () => {
      const b = anInvoice({ customerId: 'cus_b' });
      const payment = aPayment({ customerId: null, remittance: [{ invoiceId: null, invoiceNumber: b.number, amount: null }] });
      expect(applied(await decide(payment, [b]).result)).toMatchObject({ rule: 'remittance', customerId: 'cus_b' });
    });

    it('asks for review when the named invoices belong to several customers', async () => {
      const a = anInvoice({ customerId: 'cus_a' });
      const b = anInvoice({ customerId: 'cus_b' });
      const payment = aPayment({ customerId: null, remittance: [a, b].map((i) => ({ invoiceId: i.id, invoiceNumber: null, amount: null })) });
      expect(await decide(payment, [a, b]).result).toEqual({
        outcome: 'review',
        rule: 'remittance',
        suggestions: [
          { invoice_ids: [a.id], rule: 'remittance', customer_id: 'cus_a', confidence: 0.5, reason: `The remittance names invoices of 2 customers; ${a.number} belongs to one of them.` },
          { invoice_ids: [b.id], rule: 'remittance', customer_id: 'cus_b', confidence: 0.5, reason: `The remittance names invoices of 2 customers; ${b.number} belongs to one of them.` },
        ],
      });
    });

    it('wins over the reference', async () => {
      const a = anInvoice();
      const b = anInvoice();
      const payment = aPayment({ reference: b.number, remittance: [{ invoiceId: a.id, invoiceNumber: null, amount: null }] });
      expect(applied(await decide(payment, [a, b]).result).allocations).toEqual([[a.id, 10_000]]);
    });
  });

  describe('rule 2: reference', () => {
    it('applies the invoices found in the reference, oldest due first', async () => {
      const late = anInvoice({ amountDue: 6_000, dueDate: '2025-03-01' });
      const early = anInvoice({ amountDue: 6_000, dueDate: '2025-02-01' });
      const payment = aPayment({ reference: `ACH PMT ${late.number} ${early.number}` });
      expect(applied(await decide(payment, [late, early]).result)).toEqual({
        rule: 'reference',
        customerId: 'cus_a',
        allocations: [[early.id, 6_000], [late.id, 4_000]],
      });
    });

    it('understands numbers the way people write them', async () => {
      const a = anInvoice({ number: 'INV-000123', amountDue: 4_000 });
      const b = anInvoice({ number: 'INV-000124', amountDue: 6_000 });
      const payment = aPayment({ reference: 'inv 123 & #124 thanks' });
      expect(applied(await decide(payment, [a, b]).result).allocations.map(([id]) => id).sort()).toEqual([a.id, b.id].sort());
    });

    it('identifies the customer of a payment that has none, and keeps the rest as credit', async () => {
      const b = anInvoice({ customerId: 'cus_b', amountDue: 2_500 });
      const payment = aPayment({ customerId: null, reference: `payment for ${b.number}` });
      expect(applied(await decide(payment, [b]).result)).toEqual({ rule: 'reference', customerId: 'cus_b', allocations: [[b.id, 2_500]] });
    });

    it('asks for review when a number fits two invoices', async () => {
      const a = anInvoice({ number: 'INV-000555' });
      const b = anInvoice({ number: 'CN-000555' });
      const payment = aPayment({ amount: 1, reference: '#555' });
      expect(await decide(payment, [a, b]).result).toMatchObject({ outcome: 'review', rule: 'reference' });
    });

    it('does not let a number of a paid invoice fall through to another invoice', async () => {
      const paid = anInvoice({ number: 'INV-000777', status: 'paid', amountDue: 0 });
      const other = anInvoice({ number: 'CN-000777' });
      // `INV-777` fits only INV-000777 (prefix), which is paid: rule 2 does not apply, and no amount rule fits.
      const payment = aPayment({ amount: 1, reference: 'INV-777' });
      expect(await decide(payment, [paid, other]).result).toEqual({ outcome: 'unmatched' });
    });

    it('ignores numbers that belong to no invoice of the tenant', async () => {
      const a = anInvoice({ amountDue: 3 });
      const payment = aPayment({ amount: 7, reference: 'INV-999999 #424242' });
      expect(await decide(payment, [a]).result).toEqual({ outcome: 'unmatched' });
    });
  });

  describe('rule 3: exact amount', () => {
    it('applies to the one open invoice whose amount due equals the payment', async () => {
      const other = anInvoice({ amountDue: 9_999 });
      const exact = anInvoice({ amountDue: 10_000, status: 'partially_paid' });
      expect(applied(await decide(aPayment(), [other, exact]).result)).toEqual({ rule: 'exact_amount', customerId: 'cus_a', allocations: [[exact.id, 10_000]] });
    });

    it('asks for review when several invoices have that amount due, applying nothing', async () => {
      const a = anInvoice({ dueDate: '2025-01-02' });
      const b = anInvoice({ dueDate: '2025-01-01' });
      expect(await decide(aPayment(), [a, b]).result).toEqual({
        outcome: 'review',
        rule: 'exact_amount',
        suggestions: [
          {
            invoice_ids: [b.id],
            rule: 'exact_amount',
            customer_id: 'cus_a',
            confidence: 0.5,
            reason: `${b.number} (due 2025-01-01, 100.00 USD due): one of 2 open invoices of the customer whose amount due equals 100.00 USD.`,
          },
          { invoice_ids: [a.id], rule: 'exact_amount', customer_id: 'cus_a', confidence: 0.5, reason: expect.stringContaining(`${a.number} (due 2025-01-02`) },
        ],
      });
    });

    it('skips disputed invoices (the remaining one is unique)', async () => {
      const disputed = anInvoice({ disputed: true });
      const exact = anInvoice();
      expect(applied(await decide(aPayment(), [disputed, exact]).result).allocations).toEqual([[exact.id, 10_000]]);
    });

    it('looks only at the payment customer’s invoices in its currency', async () => {
      const otherCustomer = anInvoice({ customerId: 'cus_b' });
      const otherCurrency = anInvoice({ currency: 'eur' });
      expect(await decide(aPayment(), [otherCustomer, otherCurrency]).result).toEqual({ outcome: 'unmatched' });
    });
  });

  describe('rule 4: combination', () => {
    it('applies the one smallest set whose amounts due sum to the payment', async () => {
      const a = anInvoice({ amountDue: 3_000 });
      const b = anInvoice({ amountDue: 1_500 });
      const c = anInvoice({ amountDue: 7_000 });
      const d = anInvoice({ amountDue: 500 });
      const res = applied(await decide(aPayment(), [a, b, c, d]).result);
      expect(res.rule).toBe('combination');
      expect(res.allocations.sort()).toEqual([[a.id, 3_000], [c.id, 7_000]].sort());
    });

    it('asks for review when two sets of the same size fit', async () => {
      const inv = [2_000, 8_000, 3_000, 7_000].map((amountDue) => anInvoice({ amountDue }));
      const decision = await decide(aPayment(), inv).result;
      expect(decision).toMatchObject({ outcome: 'review', rule: 'combination' });
      if (decision.outcome !== 'review') return;
      expect(decision.suggestions.map((s) => [...s.invoice_ids].sort()).sort()).toEqual(
        [[inv[0].id, inv[1].id].sort(), [inv[2].id, inv[3].id].sort()].sort(),
      );
    });

    it('searches only the 50 oldest invoices', async () => {
      const old = Array.from({ length: 50 }, (_, i) => anInvoice({ amountDue: 1_000_000 + i, dueDate: '2024-01-01' }));
      const young = [anInvoice({ amountDue: 4_000, dueDate: '2025-06-01' }), anInvoice({ amountDue: 6_000, dueDate: '2025-06-02' })];
      expect(await decide(aPayment(), [...old, ...young]).result).toEqual({ outcome: 'unmatched' });
      expect(applied(await decide(aPayment(), [...old.slice(2), ...young]).result).rule).toBe('combination');
    });

    it('uses at most five invoices', async () => {
      const six = Array.from({ length: 6 }, () => anInvoice({ amountDue: 1_000 }));
      expect(await decide(aPayment({ amount: 6_000 }), six).result).toEqual({ outcome: 'unmatched' });
      expect(await decide(aPayment({ amount: 5_000 }), six).result).toMatchObject({ outcome: 'review', rule: 'combination' });
    });
  });

  describe('rule 5: oldest first', () => {
    const invoices = () => [
      anInvoice({ amountDue: 4_000, dueDate: '2025-02-01' }),
      anInvoice({ amountDue: 4_000, dueDate: '2025-01-01' }),
      anInvoice({ amountDue: 4_000, dueDate: '2025-03-01', disputed: true }),
      anInvoice({ amountDue: 4_000, dueDate: '2025-04-01' }),
    ];

    it('applies oldest due first, only when the payment asks for it', async () => {
      const inv = invoices();
      expect(await decide(aPayment({ amount: 9_000 }), inv).result).toEqual({ outcome: 'unmatched' });
      expect(applied(await decide(aPayment({ amount: 9_000, autoMatch: 'oldest_first' }), inv).result)).toEqual({
        rule: 'oldest_first',
        customerId: 'cus_a',
        allocations: [[inv[1].id, 4_000], [inv[0].id, 4_000], [inv[3].id, 1_000]],
      });
    });

    it('applies when the payment asked for it and rule 3 or 4 is ambiguous (contract §8)', async () => {
      const inv = invoices();
      expect(await decide(aPayment({ amount: 4_000 }), inv).result).toMatchObject({ outcome: 'review', rule: 'exact_amount' });
      expect(applied(await decide(aPayment({ amount: 4_000, autoMatch: 'oldest_first' }), inv).result)).toEqual({
        rule: 'oldest_first',
        customerId: 'cus_a',
        allocations: [[inv[1].id, 4_000]],
      });
      expect(await decide(aPayment({ amount: 8_000 }), inv).result).toMatchObject({ outcome: 'review', rule: 'combination' });
      expect(applied(await decide(aPayment({ amount: 8_000, autoMatch: 'oldest_first' }), inv).result).allocations).toEqual([[inv[1].id, 4_000], [inv[0].id, 4_000]]);
    });

    it('keeps a unique exact or combination answer ahead of oldest first', async () => {
      const inv = [anInvoice({ amountDue: 1_000, dueDate: '2025-01-01' }), anInvoice({ amountDue: 2_500, dueDate: '2025-02-01' })];
      expect(applied(await decide(aPayment({ amount: 2_500, autoMatch: 'oldest_first' }), inv).result)).toMatchObject({ rule: 'exact_amount', allocations: [[inv[1].id, 2_500]] });
    });
  });

  it('matches nothing with auto_match "none", whatever the payment says', async () => {
    const a = anInvoice();
    const payment = aPayment({ autoMatch: 'none', remittance: [{ invoiceId: a.id, invoiceNumber: null, amount: null }], reference: a.number });
    const { result, source } = decide(payment, [a]);
    expect(await result).toEqual({ outcome: 'unmatched' });
    expect(source.calls).toEqual({ named: 0, pool: 0, payers: 0 });
  });

  it('leaves a payment with no customer and no usable reference unmatched without loading invoices', async () => {
    const { result, source } = decide(aPayment({ customerId: null, reference: 'thanks' }), [anInvoice()]);
    expect(await result).toEqual({ outcome: 'unmatched' });
    expect(source.calls.pool).toBe(0);
  });
});
