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
  /** §15 write-off; cash application uses it for short pays (§13) */
  writeOff(request: { amount: number; reason: 'short_pay'; settledOn: string }, at: BusinessTime): { id: string; amount: number };
}

/** Part of an invoice's amount due to write off because the payment settles it short (§13). */
export interface ShortPayWriteOff {
  invoiceId: string;
  amount: number;
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
    /**
     * Short pays within the tenant's tolerance (§13, automatic matching only): each invoice's rest
     * is written off (reason `short_pay`, settled on the payment's date) with the application.
     */
    shortPays: ShortPayWriteOff[] = [],
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
    const writeOffs = shortPays.map(({ invoiceId, amount }) => {
      const invoice = planned.find((p) => p.invoice.id === invoiceId)?.invoice;
      if (!invoice) throw new Error(`short pay of invoice ${invoiceId}, which this match does not pay`);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount !== dueLeft.get(invoiceId)) {
        throw new Error(`short pay of ${amount} on invoice ${invoiceId} is not what the match leaves due (${dueLeft.get(invoiceId)})`);
      }
      return { invoice, amount };
    });
    const identifiedCustomer = payment.customerId === null ? customerId : null;
    // The invoices' write-offs first: their ids go into the payment's match (and its payment.matched
    // event); the payment applied last is what settles each invoice (invoice.paid comes last).
    const made = writeOffs.map(({ invoice, amount }) => {
      const w = invoice.writeOff({ amount, reason: 'short_pay', settledOn: payment.paymentDate }, at);
      return { id: w.id, invoiceId: invoice.id, invoiceNumber: invoice.number, amount: w.amount, reason: 'short_pay' as const };
    });
    const applications = payment.apply(
      planned.map((p) => ({ invoiceId: p.invoice.id, invoiceNumber: p.invoice.number, amount: p.amount, applicationId: p.applicationId })),
      source,
      rule,
      at.now,
      customerId ?? undefined,
      made,
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
