import { TenantCalendar, TenantSettings, TenantSettingsReader } from '../../../src/modules/settings';
import { TransactionalEvents } from '../../../src/shared/application/transactional-events';
import { Invoice, InvoiceRepository } from '../../../src/modules/invoicing';
import { AutoMatchPaymentHandler } from '../../../src/modules/payments/application/auto-match-payment.handler';
import { CashMatchingPolicy, MatchDecision, ShortPayTolerance } from '../../../src/modules/payments/domain/matching/cash-matching.policy';
import { MatchCandidate, MatchCandidateSource } from '../../../src/modules/payments/domain/matching/match-candidate';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { PaymentRepository } from '../../../src/modules/payments/domain/payment.repository';
import { CustomerMatchingLock, MatchCandidates } from '../../../src/modules/payments/application/matching-ports';
import { Money } from '../../../src/shared/domain/money';
import { aPayment, anInvoice as aCandidate, InMemoryCandidates } from './match-candidate.mother';
import { anInvoice, aRecordedPayment, candidateOf } from './payment.mother';

/** Short-pay tolerance (contract §13): 5.00 or 1 % of what is due, whichever is less. */
const settings = TenantSettings.defaults().patch({ cash_application: { short_pay_tolerance: { amount: 500, percent: 1 }, payer_name_matching: true } });
const tolerance: ShortPayTolerance = { of: (due) => settings.shortPayTolerance(due), max: settings.shortPayTolerance(Number.MAX_SAFE_INTEGER) };
const policy = new CashMatchingPolicy();

async function decide(payment: ReturnType<typeof aPayment>, invoices: MatchCandidate[]): Promise<MatchDecision> {
  return policy.decide({ shortPayTolerance: tolerance, ...payment }, new InMemoryCandidates(invoices));
}

function applied(d: MatchDecision) {
  if (d.outcome !== 'apply') throw new Error(`expected apply, got ${JSON.stringify(d)}`);
  return { rule: d.rule, allocations: d.allocations.map((a) => [a.invoiceId, a.amount]), writeOffs: d.writeOffs.map((w) => [w.invoiceId, w.amount]) };
}

describe('short-pay tolerance: the policy', () => {
  it('is min(amount, floor(percent × amount due / 100)), off unless both are above 0', () => {
    expect(settings.shortPayTolerance(10_000)).toBe(100);
    expect(settings.shortPayTolerance(1_000_000)).toBe(500);
    expect(settings.shortPayTolerance(199)).toBe(1);
    expect(tolerance.max).toBe(500);
    const amountOnly = TenantSettings.defaults().patch({ cash_application: { short_pay_tolerance: { amount: 500, percent: 0 }, payer_name_matching: true } });
    expect(amountOnly.shortPayTolerance(10_000)).toBe(0);
  });

  describe('rule 3 (exact_amount): the one invoice whose amount due exceeds the payment by at most the tolerance', () => {
    it('applies the payment and writes off the difference within the tolerance', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(applied(await decide(aPayment({ amount: 9_950 }), [a]))).toEqual({ rule: 'exact_amount', allocations: [[a.id, 9_950]], writeOffs: [[a.id, 50]] });
    });

    it('settles at the boundary (short by exactly the tolerance)', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(applied(await decide(aPayment({ amount: 9_900 }), [a])).writeOffs).toEqual([[a.id, 100]]);
    });

    it('does nothing one unit beyond the tolerance', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(await decide(aPayment({ amount: 9_899 }), [a])).toEqual({ outcome: 'unmatched' });
    });

    it('caps the tolerance at its amount on large invoices', async () => {
      const a = aCandidate({ amountDue: 1_000_000 });
      expect(applied(await decide(aPayment({ amount: 999_500 }), [a])).writeOffs).toEqual([[a.id, 500]]);
      expect(await decide(aPayment({ amount: 999_499 }), [a])).toEqual({ outcome: 'unmatched' });
    });

    it('lets an exact match win over a near one', async () => {
      const near = aCandidate({ amountDue: 10_000 });
      const exact = aCandidate({ amountDue: 9_950 });
      expect(applied(await decide(aPayment({ amount: 9_950 }), [near, exact]))).toEqual({ rule: 'exact_amount', allocations: [[exact.id, 9_950]], writeOffs: [] });
    });

    it('sends two near invoices to review and applies nothing', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      const b = aCandidate({ amountDue: 10_020 });
      const d = await decide(aPayment({ amount: 9_950 }), [a, b]);
      expect(d.outcome).toBe('review');
      if (d.outcome !== 'review') return;
      expect(d.rule).toBe('exact_amount');
      expect(d.suggestions.map((s) => s.invoice_ids)).toEqual(expect.arrayContaining([[a.id], [b.id]]));
      expect(d.suggestions).toHaveLength(2);
      expect(d.suggestions.every((s) => s.confidence === 0.5 && /short-pay tolerance/.test(s.reason))).toBe(true);
    });

    it('never settles when the tolerance is off, nor an over-payment, nor a disputed invoice', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(await policy.decide(aPayment({ amount: 9_950 }), new InMemoryCandidates([a]))).toEqual({ outcome: 'unmatched' });
      expect(await decide(aPayment({ amount: 10_050 }), [a])).toEqual({ outcome: 'unmatched' });
      expect(await decide(aPayment({ amount: 9_950 }), [aCandidate({ amountDue: 10_000, disputed: true })])).toEqual({ outcome: 'unmatched' });
    });

    it('is not part of rule 4 (combination) nor rule 5 (oldest_first)', async () => {
      const a = aCandidate({ amountDue: 6_000, dueDate: '2025-01-01' });
      const b = aCandidate({ amountDue: 4_000, dueDate: '2025-01-02' });
      expect(await decide(aPayment({ amount: 9_950 }), [a, b])).toEqual({ outcome: 'unmatched' });
      expect(applied(await decide(aPayment({ amount: 9_950, autoMatch: 'oldest_first' }), [a, b]))).toEqual({
        rule: 'oldest_first',
        allocations: [[a.id, 6_000], [b.id, 3_950]],
        writeOffs: [],
      });
    });
  });

  it('says so in the suggestion when a payer fits several customers and one of them has a near invoice', async () => {
    const a = aCandidate({ amountDue: 10_000, customerId: 'cus_a' });
    const b = aCandidate({ amountDue: 77_777, customerId: 'cus_b' });
    const customers = [
      { id: 'cus_a', name: 'Globex GmbH', currency: 'usd', accounts: ['DE89370400440532013000'], names: [] },
      { id: 'cus_b', name: 'Globex Ltd', currency: 'usd', accounts: ['DE89370400440532013000'], names: [] },
    ];
    const d = await policy.decide(
      { ...aPayment({ amount: 9_950, customerId: null, payer: { name: null, account: 'DE89370400440532013000' } }), shortPayTolerance: tolerance },
      new InMemoryCandidates([a, b], customers),
    );
    expect(d.outcome).toBe('review');
    if (d.outcome !== 'review') return;
    const forA = d.suggestions.find((s) => s.customer_id === 'cus_a')!;
    expect(forA.invoice_ids).toEqual([a.id]);
    expect(forA.reason).toContain(`${a.number} is due for 100.00 USD, within the short-pay tolerance of the 99.50 USD paid.`);
  });

  describe('rules 1–2 (remittance, reference): the invoices named, paid short by at most the tolerance of what they owe together', () => {
    it('writes off the rest of an invoice named in the reference', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(applied(await decide(aPayment({ amount: 9_950, reference: `Payment ${a.number}` }), [a]))).toEqual({
        rule: 'reference',
        allocations: [[a.id, 9_950]],
        writeOffs: [[a.id, 50]],
      });
    });

    it('takes the tolerance of the named invoices together, and writes off what each still owes', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      const b = aCandidate({ amountDue: 10_000 });
      const payment = aPayment({
        amount: 19_850,
        remittance: [
          { invoiceId: a.id, invoiceNumber: null, amount: 9_900 },
          { invoiceId: b.id, invoiceNumber: null, amount: null },
        ],
      });
      // 150 short of 20,000; 1 % of 20,000 = 200.
      expect(applied(await decide(payment, [a, b]))).toEqual({ rule: 'remittance', allocations: [[a.id, 9_900], [b.id, 9_950]], writeOffs: [[a.id, 100], [b.id, 50]] });
    });

    it('leaves a larger shortfall due, and an over-payment as credit', async () => {
      const a = aCandidate({ amountDue: 10_000 });
      expect(applied(await decide(aPayment({ amount: 9_800, reference: a.number }), [a]))).toEqual({ rule: 'reference', allocations: [[a.id, 9_800]], writeOffs: [] });
      expect(applied(await decide(aPayment({ amount: 10_300, reference: a.number }), [a]))).toEqual({ rule: 'reference', allocations: [[a.id, 10_000]], writeOffs: [] });
    });

    it('writes off nothing when a named invoice got nothing (it was not paid short: it was not paid)', async () => {
      const a = aCandidate({ amountDue: 10_000, dueDate: '2025-01-01' });
      const b = aCandidate({ amountDue: 50, dueDate: '2025-01-02' });
      expect(applied(await decide(aPayment({ amount: 10_000, reference: `${a.number} ${b.number}` }), [a, b]))).toEqual({
        rule: 'reference',
        allocations: [[a.id, 10_000]],
        writeOffs: [],
      });
    });

    it('never settles a reference that fits several invoices', async () => {
      const a = aCandidate({ amountDue: 10_000, number: 'A-100' });
      const b = aCandidate({ amountDue: 10_000, number: 'B-100' });
      const d = await decide(aPayment({ amount: 9_950, reference: 'invoice 100' }), [a, b]);
      expect(d.outcome).toBe('review');
    });
  });
});

describe('short-pay tolerance: the handler over real aggregates', () => {
  const calendar = { now: async () => ({ now: new Date('2025-03-02T10:00:00Z'), today: '2025-03-02' }) } as unknown as TenantCalendar;

  function setup(payment: Payment, invoices: Invoice[], tenantSettings = settings) {
    const saved: string[] = [];
    const payments: PaymentRepository = {
      findByIdForUpdate: async () => payment,
      insert: async () => undefined,
      save: async (p: Payment) => void saved.push(`payment:${p.match.status}`),
      insertMany: async () => undefined,
    };
    const invoiceRepo = {
      findByIdsForUpdate: async (_t: string, ids: readonly string[]) => invoices.filter((i) => ids.includes(i.id)),
      save: async (i: Invoice) => void saved.push(`invoice:${i.id}`),
    };
    const source: MatchCandidateSource = { named: async () => invoices.map((i) => candidateOf(i)), pool: async () => invoices.map((i) => candidateOf(i)), payers: async () => [] };
    const handler = new AutoMatchPaymentHandler(
      { subscribe: jest.fn(), enqueue: jest.fn() } as TransactionalEvents,
      payments,
      invoiceRepo as unknown as InvoiceRepository,
      { forTenant: () => source } as MatchCandidates,
      { lock: async () => undefined, lockMany: async () => undefined } as unknown as CustomerMatchingLock,
      calendar,
      { get: async () => tenantSettings } as TenantSettingsReader,
      { record: () => undefined },
    );
    const event = payment.pullEvents()[0];
    return { run: () => handler.handle(event), saved };
  }

  it('applies, writes off the difference as short_pay settled on the payment date, and records it on the match', async () => {
    const payment = aRecordedPayment({ amount: Money.of(9_950, 'usd'), paymentDate: '2025-02-27' });
    const invoice = anInvoice({ total: 10_000 });
    const { run, saved } = setup(payment, [invoice]);
    await run();

    expect(invoice.toJSON('2025-03-02')).toMatchObject({ status: 'paid', amount_paid: 9_950, amount_written_off: 50, amount_due: 0 });
    expect(invoice.toSnapshot().paidOn).toBe('2025-02-27');
    const writeOffs = invoice.pullWriteOffs();
    expect(writeOffs).toEqual([expect.objectContaining({ amount: 50, reason: 'short_pay' })]);
    const events = invoice.pullEvents().map((e) => e.type);
    expect(events).toContain('invoice.written_off');
    expect(events[events.length - 1]).toBe('invoice.paid');

    expect(payment.match).toMatchObject({ status: 'matched', rule: 'exact_amount' });
    expect(payment.match.writeOffs).toEqual([{ id: expect.stringMatching(/^wo_/), invoiceId: invoice.id, invoiceNumber: invoice.number, amount: 50, reason: 'short_pay' }]);
    expect(payment.match.writeOffs[0].id).toBe(writeOffs[0].id);
    const matched = payment.pullEvents().find((e) => e.type === 'payment.matched')!;
    expect((matched.data.object as { match: { write_offs: unknown[] } }).match.write_offs).toEqual([
      { id: payment.match.writeOffs[0].id, invoice_id: invoice.id, invoice_number: invoice.number, amount: 50, reason: 'short_pay' },
    ]);
    expect(saved).toEqual([`invoice:${invoice.id}`, 'payment:matched']);
  });

  it('with the tolerance off, leaves the invoice partially paid and writes nothing off', async () => {
    const payment = aRecordedPayment({ amount: Money.of(9_950, 'usd'), reference: 'see invoice' });
    const invoice = anInvoice({ total: 10_000 });
    const { run } = setup(payment, [invoice], TenantSettings.defaults());
    await run();
    expect(invoice.toJSON('2025-03-02')).toMatchObject({ status: 'open', amount_paid: 0, amount_written_off: 0 });
    expect(payment.match).toEqual({ status: 'unmatched', rule: null, suggestions: [], writeOffs: [] });
  });

  it('keeps the record of the write-off when the application is later reversed', async () => {
    const payment = aRecordedPayment({ amount: Money.of(9_950, 'usd') });
    const invoice = anInvoice({ total: 10_000 });
    await setup(payment, [invoice]).run();
    const application = payment.activeApplications[0];
    payment.reverseApplication(application.id, new Date('2025-03-03T00:00:00Z'));
    expect(payment.match.status).toBe('unmatched');
    expect(payment.match.writeOffs).toHaveLength(1);
  });
});
