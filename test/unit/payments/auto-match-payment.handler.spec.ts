import { TenantCalendar, TenantSettings, TenantSettingsReader } from '../../../src/modules/settings';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { InvoiceRepository } from '../../../src/modules/invoicing';
import { AutoMatchPaymentHandler } from '../../../src/modules/payments/application/auto-match-payment.handler';
import { MatchCandidate, MatchCandidateSource } from '../../../src/modules/payments/domain/matching/match-candidate';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { PaymentRepository } from '../../../src/modules/payments/domain/payment.repository';
import { SqlMatchCandidateSource } from '../../../src/modules/payments/infrastructure/sql-match-candidate.source';
import { aRecordedPayment, FakeInvoice } from './payment.mother';

/** The in-transaction auto-matching handler with in-memory ports: what it locks, re-checks and saves. */
describe('AutoMatchPaymentHandler', () => {
  const calendar = { now: async () => ({ now: new Date('2025-03-02T10:00:00Z'), today: '2025-03-02' }) } as unknown as TenantCalendar;
  let saved: string[];
  let advisoryLocks: unknown[][];

  function setup(payment: Payment, invoices: FakeInvoice[], snapshots: () => MatchCandidate[]) {
    saved = [];
    advisoryLocks = [];
    const uow = {
      subscribe: jest.fn(),
      query: jest.fn(async (_sql: string, params: unknown[]) => {
        advisoryLocks.push(params);
        return [];
      }),
    };
    const payments: PaymentRepository = {
      findByIdForUpdate: async () => payment,
      insert: async () => undefined,
      save: async (p: Payment) => void saved.push(`payment:${p.match.status}`),
    };
    const invoiceRepo = {
      findByIdsForUpdate: async (_t: string, ids: readonly string[]) => invoices.filter((i) => ids.includes(i.id)).sort((a, b) => (a.id < b.id ? -1 : 1)),
      save: async (i: FakeInvoice) => void saved.push(`invoice:${i.id}`),
    };
    const pool = jest.fn(async () => snapshots());
    const source: MatchCandidateSource = { named: async () => [], pool, payers: async () => [] };
    const handler = new AutoMatchPaymentHandler(
      uow as unknown as UnitOfWork,
      payments,
      invoiceRepo as unknown as InvoiceRepository,
      { forTenant: () => source } as unknown as SqlMatchCandidateSource,
      calendar,
      { get: async () => TenantSettings.defaults() } as TenantSettingsReader,
    );
    const event = payment.pullEvents()[0];
    return { run: () => handler.handle(event), pool };
  }

  const snapshot = (i: FakeInvoice, dueDate = '2025-03-01'): MatchCandidate => ({
    id: i.id,
    number: i.number,
    customerId: i.customerId,
    currency: i.currency,
    status: i.status,
    amountDue: i.amountDue.amount,
    dueDate,
    disputed: i.isDisputed,
  });

  it('locks the customer’s matching, applies the decision, and saves the invoices before the payment', async () => {
    const payment = aRecordedPayment();
    const a = new FakeInvoice('inv_a', 'INV-A', 10_000);
    const { run } = setup(payment, [a], () => [snapshot(a)]);
    await run();
    expect(advisoryLocks).toEqual([[`automatch:ten_1:cus_a`]]);
    expect(a.applied).toEqual([{ amount: 10_000, paymentId: payment.id, applicationId: expect.stringMatching(/^app_/) }]);
    expect(saved).toEqual(['invoice:inv_a', 'payment:matched']);
    expect(payment.match).toEqual({ status: 'matched', rule: 'exact_amount', suggestions: [] });
  });

  it('decides again when a chosen invoice changed between reading and locking', async () => {
    const payment = aRecordedPayment();
    const a = new FakeInvoice('inv_a', 'INV-A', 10_000);
    const b = new FakeInvoice('inv_b', 'INV-B', 4_000);
    const stale = [snapshot(a), snapshot(b, '2025-03-05')];
    a.pay(6_000); // a manual match committed after the candidates were read
    let reads = 0;
    const { run, pool } = setup(payment, [a, b], () => (reads++ === 0 ? stale : [snapshot(a), snapshot(b, '2025-03-05')]));
    await run();
    expect(pool).toHaveBeenCalledTimes(2);
    // Fresh figures: 4,000 + 4,000 ≠ 10,000 and both are 4,000 — nothing fits, nothing is guessed.
    expect(a.applied).toEqual([]);
    expect(b.applied).toEqual([]);
    expect(saved).toEqual([]);
  });

  it('gives up after a few changed decisions and leaves the payment for a person', async () => {
    const payment = aRecordedPayment();
    const a = new FakeInvoice('inv_a', 'INV-A', 10_000);
    a.pay(1);
    const { run, pool } = setup(payment, [a], () => [{ ...snapshot(a), amountDue: 10_000, status: 'open' }]);
    await run();
    expect(pool).toHaveBeenCalledTimes(3);
    expect(a.applied).toEqual([]);
    expect(saved).toEqual([]);
  });

  it('saves a needs_review result without touching invoices', async () => {
    const payment = aRecordedPayment();
    const a = new FakeInvoice('inv_a', 'INV-A', 10_000);
    const b = new FakeInvoice('inv_b', 'INV-B', 10_000);
    const { run } = setup(payment, [a, b], () => [snapshot(a), snapshot(b)]);
    await run();
    expect(saved).toEqual(['payment:needs_review']);
    expect(payment.match.suggestions).toHaveLength(2);
  });

  it('does nothing for auto_match "none"', async () => {
    const payment = aRecordedPayment({ autoMatch: 'none' });
    const { run, pool } = setup(payment, [], () => []);
    await run();
    expect(pool).not.toHaveBeenCalled();
    expect(advisoryLocks).toEqual([]);
  });
});
