import { CommandBus } from '@nestjs/cqrs';
import { LedgerWriter } from '../../../src/modules/customers';
import { Invoice, InvoiceRepository } from '../../../src/modules/invoicing';
import { TenantCalendar, TenantSettings, TenantSettingsReader } from '../../../src/modules/settings';
import { CustomerMatchingLock, GroupMatchCandidates } from '../../../src/modules/payments/application/matching-ports';
import { GroupPaymentResult, RecordPaymentGroupHandler } from '../../../src/modules/payments/application/record-payment-group.command';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { PaymentRepository } from '../../../src/modules/payments/domain/payment.repository';
import { MatchCandidate } from '../../../src/modules/payments/domain/matching/match-candidate';
import { TransactionalEvents } from '../../../src/shared/application/transactional-events';
import { anInvoice, AT, candidateOf, payElsewhere } from './payment.mother';

/**
 * RecordPaymentGroupHandler (ADR 0037) over real aggregates, its reads and writes faked: what it
 * does when the invoices it chose are no longer what it read once locked (a manual match in
 * between), and the order it locks and writes in.
 */
describe('RecordPaymentGroupHandler', () => {
  const calendar = { now: async () => ({ now: AT, today: '2025-03-01' }) } as unknown as TenantCalendar;
  const ACCOUNT = 'NL03RACE0000000001';

  function setup(invoices: Invoice[], named: () => MatchCandidate[]) {
    const calls: string[] = [];
    const inserted: Payment[] = [];
    const settled: string[] = [];
    const candidates: GroupMatchCandidates = {
      named: async (_t, queries) => {
        calls.push('named');
        return queries.map(() => named());
      },
      payers: async (_t, queries) => {
        calls.push('payers');
        return queries.map((q) => (q.kind === 'account' && q.key === ACCOUNT ? [{ id: 'cus_a', name: 'Acme' }] : []));
      },
      pool: async () => {
        calls.push('pool');
        return invoices.filter((i) => i.status === 'open' || i.status === 'partially_paid').map((i) => candidateOf(i));
      },
    };
    const invoiceRepo = {
      findByIdsForUpdate: async (_t: string, ids: readonly string[]) => {
        calls.push(`lock invoices ${[...ids].sort().join(',')}`);
        return invoices.filter((i) => ids.includes(i.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
      },
      saveSettlements: async (changes: { invoice: Invoice }[]) => {
        calls.push('save invoices');
        for (const { invoice } of changes) settled.push(invoice.id);
      },
    } as unknown as InvoiceRepository;
    const payments = {
      insertMany: async (list: readonly Payment[]) => {
        calls.push('insert payments');
        inserted.push(...list);
      },
    } as unknown as PaymentRepository;
    const handler = new RecordPaymentGroupHandler(
      payments,
      invoiceRepo,
      candidates,
      {
        lock: async (_t: string, c: string) => void calls.push(`lock ${c}`),
        lockMany: async (_t: string, c: readonly string[]) => void calls.push(`lock customers ${c.join(',')}`),
      } as CustomerMatchingLock,
      calendar,
      { get: async () => TenantSettings.defaults() } as TenantSettingsReader,
      { record: () => undefined },
      { postMany: async () => void calls.push('ledger') } as unknown as LedgerWriter,
      { subscribe: jest.fn(), enqueue: jest.fn() } as unknown as TransactionalEvents,
      { execute: async () => { throw new Error('not one by one'); } } as unknown as CommandBus,
    );
    return { handler, calls, inserted, settled };
  }

  it('decides again when a chosen invoice was paid by hand before it was locked: the entry takes what is left', async () => {
    const r1 = anInvoice({ total: 10_000 });
    const r2 = anInvoice({ total: 10_000 });
    // What the group read for the entry: R-1 open. Then a person pays R-1, before the group locks it.
    const stale = candidateOf(r1);
    payElsewhere(r1, 10_000);
    const { handler, calls, inserted, settled } = setup([r1, r2], () => [stale]);

    const results: GroupPaymentResult[] = await handler.execute({
      tenantId: 'ten_1',
      inputs: [{ amount: 10_000, currency: 'usd', reference: `Invoice ${r1.number}`, payer: { account: ACCOUNT }, bank_entry_id: 'RACE-1' }],
    });

    expect(results).toEqual([{ paymentId: inserted[0].id, matchStatus: 'matched' }]);
    // R-1 was paid by then: identified by its account, the entry takes R-2 by its exact amount.
    expect(inserted[0].match.rule).toBe('exact_amount');
    expect(inserted[0].activeApplications.map((a) => a.invoiceId)).toEqual([r2.id]);
    expect(r1.amountPaid.amount).toBe(10_000);
    expect(r2.status).toBe('paid');
    // Both locked invoices go to saveSettlements (which writes only the changed one), in id order.
    expect(settled).toEqual([r1.id, r2.id].sort());
    // Customers locked before any pool read; invoices locked, then everything written once.
    expect(calls).toEqual([
      'named',
      'payers',
      'lock customers cus_a',
      `lock invoices ${r1.id}`,
      'pool',
      `lock invoices ${r2.id}`,
      'save invoices',
      'insert payments',
      'ledger',
    ]);
  });
});
