import { Money } from '../../../src/shared/domain/money';
import { newId } from '../../../src/shared/domain/ids';
import { BusinessTime } from '../../../src/shared/domain/clock';
import { Invoice } from '../../../src/modules/invoicing';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { MatchCandidate } from '../../../src/modules/payments/domain/matching/match-candidate';

export const AT = new Date('2025-03-01T12:00:00Z');
const WHEN: BusinessTime = { now: AT, today: '2025-03-01' };

export function aRecordedPayment(overrides: Partial<Parameters<typeof Payment.record>[0]> = {}): Payment {
  return Payment.record({
    id: newId('pay'),
    tenantId: 'ten_1',
    customerId: 'cus_a',
    amount: Money.of(10_000, 'usd'),
    paymentDate: '2025-03-01',
    method: 'ach',
    at: AT,
    ...overrides,
  });
}

let seq = 0;

/**
 * A real Invoice aggregate (the invoicing module's), open for `total` in one line, of customer
 * `cus_a` in usd unless told otherwise; `paid` is applied first by an earlier payment.
 */
export function anInvoice(o: { total: number; paid?: number; id?: string; customerId?: string; currency?: string; status?: 'draft' | 'void' }): Invoice {
  seq++;
  const currency = o.currency ?? 'usd';
  const invoice = Invoice.create({
    tenantId: 'ten_1',
    id: o.id ?? newId('inv'),
    number: `INV-${String(seq).padStart(6, '0')}`,
    customer: { id: o.customerId ?? 'cus_a', name: 'Acme', email: null, currency, paymentTermsDays: 30 },
    status: o.status === 'draft' ? 'draft' : 'open',
    issueDate: '2025-02-01',
    lineItems: [{ description: 'Work', quantity: 1, unit_amount: o.total }],
    at: WHEN,
  });
  if (o.paid) invoice.applyPayment(Money.of(o.paid, currency), 'pay_earlier', newId('app'), WHEN, '2025-02-15');
  if (o.status === 'void') invoice.update({ status: 'void' }, WHEN);
  invoice.pullEvents();
  return invoice;
}

/** Another transaction's manual match, committed after the matcher read its candidates. */
export function payElsewhere(invoice: Invoice, amount: number): void {
  invoice.applyPayment(Money.of(amount, invoice.currency), 'pay_elsewhere', newId('app'), WHEN, '2025-03-01');
}

/** What the SQL candidate source reads for an invoice (tested against PostgreSQL in test/e2e/payments/match-candidates.e2e-spec.ts). */
export function candidateOf(i: Invoice, dueDate = i.dueDate): MatchCandidate {
  return {
    id: i.id,
    number: i.number,
    customerId: i.customerId,
    currency: i.currency,
    status: i.status,
    amountDue: i.amountDue.amount,
    dueDate,
    disputed: i.isDisputed,
  };
}
