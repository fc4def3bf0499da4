import { TenantCalendar, TenantSettings, TenantSettingsReader } from '../../../src/modules/settings';
import { TransactionalEvents } from '../../../src/shared/application/transactional-events';
import { Invoice, InvoiceRepository } from '../../../src/modules/invoicing';
import { AutoMatchPaymentHandler } from '../../../src/modules/payments/application/auto-match-payment.handler';
import { MatchCandidate, MatchCandidateSource } from '../../../src/modules/payments/domain/matching/match-candidate';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { PaymentRepository } from '../../../src/modules/payments/domain/payment.repository';
import { CustomerMatchingLock, MatchCandidates } from '../../../src/modules/payments/application/matching-ports';
import { anInvoice, aRecordedPayment, candidateOf, payElsewhere } from './payment.mother';

/** The in-transaction auto-matching handler with in-memory ports: what it locks, re-checks and saves. */
describe('AutoMatchPaymentHandler', () => {
  const calendar = { now: async () => ({ now: new Date('2025-03-02T10:00:00Z'), today: '2025-03-02' }) } as unknown as TenantCalendar;
  let saved: string[];
  let locks: string[];

  /** The handler with in-memory ports over real Invoice and Payment aggregates. */
  function setup(payment: Payment, invoices: Invoice[], snapshots: () => MatchCandidate[]) {
    saved = [];
    locks = [];
    const payments: PaymentRepository = {
      findByIdForUpdate: async () => payment,
      insert: async () => undefined,
      save: async (p: Payment) => void saved.push(`payment:${p.match.status}`),
      insertMany: async () => undefined,
    };
    const invoiceRepo = {
      findByIdsForUpdate: async (_t: string, ids: readonly string[]) => invoices.filter((i) => ids.includes(i.id)).sort((a, b) => (a.id < b.id ? -1 : 1)),
      save: async (i: Invoice) => void saved.push(`invoice:${i.id}`),
    };
    const pool = jest.fn(async () => snapshots());
    const source: MatchCandidateSource = { named: async () => [], pool, payers: async () => [] };
    const handler = new AutoMatchPaymentHandler(
      { subscribe: jest.fn(), enqueue: jest.fn() } as TransactionalEvents,
      payments,
      invoiceRepo as unknown as InvoiceRepository,
      { forTenant: () => source } as MatchCandidates,
      { lock: async (tenantId: string, customerId: string) => void locks.push(`${tenantId}:${customerId}`) } as CustomerMatchingLock,
      calendar,
      { get: async () => TenantSettings.defaults() } as TenantSettingsReader,
      { record: () => undefined },
    );
    const event = payment.pullEvents()[0];
    return { run: () => handler.handle(event), pool };
  }

  it('locks the customer’s matching, applies the decision, and saves the invoices before the payment', async () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 10_000 });
    const { run } = setup(payment, [a], () => [candidateOf(a)]);
    await run();
    expect(locks).toEqual(['ten_1:cus_a']);
    expect(a.toJSON('2025-03-02')).toMatchObject({ status: 'paid', amount_paid: 10_000 });
    expect(saved).toEqual([`invoice:${a.id}`, 'payment:matched']);
    expect(payment.match).toEqual({ status: 'matched', rule: 'exact_amount', suggestions: [], writeOffs: [] });
  });

  it('decides again when a chosen invoice changed between reading and locking', async () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 10_000 });
    const b = anInvoice({ total: 4_000 });
    const stale = [candidateOf(a, '2025-03-01'), candidateOf(b, '2025-03-05')];
    payElsewhere(a, 6_000); // a manual match committed after the candidates were read
    let reads = 0;
    const { run, pool } = setup(payment, [a, b], () => (reads++ === 0 ? stale : [candidateOf(a, '2025-03-01'), candidateOf(b, '2025-03-05')]));
    await run();
    expect(pool).toHaveBeenCalledTimes(2);
    // Fresh figures: 4,000 + 4,000 ≠ 10,000 and both are 4,000 — nothing fits, nothing is guessed.
    expect([a.amountPaid.amount, b.amountPaid.amount]).toEqual([6_000, 0]);
    expect(saved).toEqual([]);
  });

  it('gives up after a few changed decisions and leaves the payment for a person', async () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 10_000, paid: 1 });
    const { run, pool } = setup(payment, [a], () => [{ ...candidateOf(a), amountDue: 10_000, status: 'open' }]);
    await run();
    expect(pool).toHaveBeenCalledTimes(3);
    expect(a.amountPaid.amount).toBe(1);
    expect(saved).toEqual([]);
  });

  it('saves a needs_review result without touching invoices, and records payment.needs_review', async () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 10_000 });
    const b = anInvoice({ total: 10_000 });
    const { run } = setup(payment, [a, b], () => [candidateOf(a), candidateOf(b)]);
    await run();
    expect(saved).toEqual(['payment:needs_review']);
    expect(payment.match.suggestions).toHaveLength(2);
    expect(payment.pullEvents().map((e) => e.type)).toEqual(['payment.needs_review']);
    expect([a.amountPaid.amount, b.amountPaid.amount]).toEqual([0, 0]);
  });

  it('does nothing for auto_match "none"', async () => {
    const payment = aRecordedPayment({ autoMatch: 'none' });
    const { run, pool } = setup(payment, [], () => []);
    await run();
    expect(pool).not.toHaveBeenCalled();
    expect(locks).toEqual([]);
  });
});
