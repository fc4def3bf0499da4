import { BusinessTime } from '../../../shared/domain/clock';
import { newId } from '../../../shared/domain/ids';
import { isOpenStatus } from '../../../shared/domain/receivable';
import { Money } from '../../../shared/domain/money';
import {
  InvoiceNotPayableError,
  InvoiceOverPaidError,
  OtherCurrencyError,
  OtherCustomerError,
  PaymentOverAppliedError,
} from './payment.errors';
import { Payment } from './payment.aggregate';
import { ApplicationSource, PaymentApplication } from './payment-application.entity';
import { MatchRule } from './matching/cash-matching.policy';

/**
 * What cash application needs from an invoice. The invoicing module's Invoice aggregate has
 * this shape; payments' domain names it here instead of importing another module's internals.
 */
export interface PayableInvoice {
  readonly id: string;
  readonly customerId: string;
  readonly number: string;
  readonly currency: string;
  readonly status: string;
  readonly amountDue: Money;
  applyPayment(amount: Money, paymentId: string, applicationId: string, at: BusinessTime, paymentDate: string): void;
  reverseApplication(amount: Money, paymentId: string, applicationId: string, at: BusinessTime): void;
}

export interface ApplicationRequest {
  invoice: PayableInvoice;
  /** omitted: the lesser of what the invoice owes and what the payment has left */
  amount?: number | null;
}

/**
 * Applies a payment to invoices and takes applications back, keeping both sides in step:
 * per invoice amount_paid = Σ applications ≤ total, per payment Σ applications ≤ amount.
 * Everything is checked before anything changes, so a refused request changes nothing.
 */
export class CashApplication {
  static apply(
    payment: Payment,
    requests: ApplicationRequest[],
    source: ApplicationSource,
    rule: MatchRule | 'manual',
    /** when, and the tenant's business date then */
    at: BusinessTime,
  ): { applications: PaymentApplication[]; identifiedCustomer: string | null } {
    const customerId = payment.customerId ?? requests[0]?.invoice.customerId ?? null;
    let left = payment.amountUnapplied.amount;
    const planned: { invoice: PayableInvoice; amount: number; applicationId: string }[] = [];
    const dueLeft = new Map<string, number>();
    for (const { invoice, amount } of requests) {
      if (invoice.currency !== payment.currency) throw new OtherCurrencyError(invoice.id, invoice.currency, payment.currency);
      if (invoice.customerId !== customerId) throw new OtherCustomerError(invoice.id);
      if (!isOpenStatus(invoice.status)) throw new InvoiceNotPayableError(invoice.id, invoice.status);
      const due = dueLeft.get(invoice.id) ?? invoice.amountDue.amount;
      const take = amount ?? Math.min(due, left);
      if (take > due) throw new InvoiceOverPaidError(invoice.id, take, due);
      if (take > left || take <= 0) throw new PaymentOverAppliedError(take, left);
      left -= take;
      dueLeft.set(invoice.id, due - take);
      planned.push({ invoice, amount: take, applicationId: newId('app') });
    }
    const identifiedCustomer = payment.customerId === null ? customerId : null;
    const applications = payment.apply(
      planned.map((p) => ({ invoiceId: p.invoice.id, invoiceNumber: p.invoice.number, amount: p.amount, applicationId: p.applicationId })),
      source,
      rule,
      at.now,
      customerId ?? undefined,
    );
    for (const p of planned) p.invoice.applyPayment(Money.of(p.amount, payment.currency), payment.id, p.applicationId, at, payment.paymentDate);
    return { applications, identifiedCustomer };
  }

  static reverse(payment: Payment, invoice: PayableInvoice, applicationId: string, at: BusinessTime): PaymentApplication {
    const application = payment.reverseApplication(applicationId, at.now);
    invoice.reverseApplication(Money.of(application.amount, payment.currency), payment.id, application.id, at);
    return application;
  }
}
