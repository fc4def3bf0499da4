import { ConflictError, InvalidStateError, NotFoundError } from '../../../shared/domain/domain-error';

/** Errors of cash application, with the codes clients see (contract §8). */
export class PaymentNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Payment', id);
  }
}

export class ApplicationNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Payment application', id);
  }
}

export class InvoiceNotFoundForMatchError extends NotFoundError {
  constructor(id: string) {
    super('Invoice', id);
  }
}

/** Over-application of the payment: more than it has left. */
export class PaymentOverAppliedError extends ConflictError {
  constructor(requested: number, unapplied: number) {
    super(`The payment has ${unapplied} unapplied; ${requested} cannot be applied.`);
  }
}

/** Over-application of an invoice: more than it still owes. */
export class InvoiceOverPaidError extends ConflictError {
  constructor(invoiceId: string, requested: number, amountDue: number) {
    super(`Invoice ${invoiceId} has ${amountDue} due; ${requested} cannot be applied to it.`);
  }
}

export class OtherCustomerError extends ConflictError {
  constructor(invoiceId: string) {
    super(`Invoice ${invoiceId} belongs to another customer than the payment.`);
  }
}

export class OtherCurrencyError extends ConflictError {
  constructor(invoiceId: string, invoiceCurrency: string, paymentCurrency: string) {
    super(`Invoice ${invoiceId} is in ${invoiceCurrency}, the payment in ${paymentCurrency}.`);
  }
}

export class InvoiceNotPayableError extends InvalidStateError {
  constructor(invoiceId: string, status: string) {
    super(`Invoice ${invoiceId} is ${status}; only open or partially paid invoices take payments.`);
  }
}

export class ApplicationAlreadyReversedError extends InvalidStateError {
  constructor(id: string) {
    super(`Application ${id} was already reversed.`);
  }
}
