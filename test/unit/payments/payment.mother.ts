import { Money } from '../../../src/shared/domain/money';
import { newId } from '../../../src/shared/domain/ids';
import { PayableInvoice } from '../../../src/modules/payments/domain/cash-application.service';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';

export const AT = new Date('2025-03-01T12:00:00Z');

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

/** A stand-in for the invoicing module's Invoice with the same payment rules. */
export class FakeInvoice implements PayableInvoice {
  readonly applied: { amount: number; paymentId: string; applicationId: string }[] = [];
  readonly reversed: string[] = [];
  status: string;
  isDisputed = false;
  constructor(
    readonly id: string,
    readonly number: string,
    private total: number,
    private paid = 0,
    readonly customerId = 'cus_a',
    readonly currency = 'usd',
    status?: string,
  ) {
    this.status = status ?? (paid === 0 ? 'open' : paid === total ? 'paid' : 'partially_paid');
  }
  /** a concurrent change (another transaction's manual match) */
  pay(amount: number): void {
    this.paid += amount;
    this.status = this.paid === this.total ? 'paid' : 'partially_paid';
  }
  get amountDue(): Money {
    return Money.of(this.total - this.paid, this.currency);
  }
  applyPayment(amount: Money, paymentId: string, applicationId: string): void {
    if (amount.amount > this.total - this.paid) throw new Error('over-applied invoice');
    this.paid += amount.amount;
    this.status = this.paid === this.total ? 'paid' : 'partially_paid';
    this.applied.push({ amount: amount.amount, paymentId, applicationId });
  }
  reverseApplication(amount: Money, _paymentId: string, applicationId: string): void {
    this.paid -= amount.amount;
    this.status = this.paid === 0 ? 'open' : 'partially_paid';
    this.reversed.push(applicationId);
  }
}
