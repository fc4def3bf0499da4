import { BusinessTime } from '../../../shared/domain/clock';
import { ConflictError, InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { Money } from '../../../shared/domain/money';
import { isOpenStatus } from '../../../shared/domain/receivable';
import { CreditNote } from './credit-note.aggregate';
import { CreditNoteOverAppliedError } from './credit-note.errors';
import { CreditApplicationState } from './credit-note.snapshot';

/** What applying credit needs from an invoice (the invoicing module's Invoice has this shape). */
export interface CreditableInvoice {
  readonly id: string;
  readonly customerId: string;
  readonly currency: string;
  readonly status: string;
  readonly amountDue: Money;
  applyCredit(amount: Money, creditNoteId: string, applicationId: string, at: BusinessTime): void;
}

export interface CreditRequest {
  invoice: CreditableInvoice;
  /** omitted: the lesser of what the invoice owes and what the credit note has left */
  amount?: number | null;
}

/**
 * Applies a credit note to invoices, keeping both sides in step (per invoice amount_credited =
 * Σ its credit applications, per credit note Σ applications + refunded ≤ amount), with the rules
 * and errors of a manual payment match (contract §8, §15): another customer or currency, an
 * invoice not open or partially paid, more than it owes or more than the note has left — 409.
 * Everything is checked before anything changes, so a refused request changes nothing.
 */
export class CreditApplication {
  static apply(note: CreditNote, requests: CreditRequest[], at: BusinessTime): CreditApplicationState[] {
    if (requests.length === 0) throw ValidationError.field('applications', 'applications must name at least one invoice');
    let left = note.amountRemaining.amount;
    const dueLeft = new Map<string, number>();
    const planned: { invoice: CreditableInvoice; amount: number; applicationId: string }[] = [];
    for (const { invoice, amount } of requests) {
      if (invoice.currency !== note.currency) throw new ConflictError(`Invoice ${invoice.id} is in ${invoice.currency}, the credit note in ${note.currency}.`);
      if (invoice.customerId !== note.customerId) throw new ConflictError(`Invoice ${invoice.id} belongs to another customer than the credit note.`);
      if (!isOpenStatus(invoice.status)) throw new InvalidStateError(`Invoice ${invoice.id} is ${invoice.status}; only open or partially paid invoices take credit.`);
      const due = dueLeft.get(invoice.id) ?? invoice.amountDue.amount;
      if (due === 0) throw new ConflictError(`Invoice ${invoice.id} has nothing due.`);
      const take = amount ?? Math.min(due, left);
      if (take > due) throw new ConflictError(`Invoice ${invoice.id} has ${due} due; ${take} cannot be applied to it.`);
      if (take > left || take <= 0) throw new CreditNoteOverAppliedError(take, left);
      left -= take;
      dueLeft.set(invoice.id, due - take);
      planned.push({ invoice, amount: take, applicationId: newId('cna') });
    }
    const applications = note.apply(
      planned.map((p) => ({ invoiceId: p.invoice.id, amount: p.amount, applicationId: p.applicationId })),
      at.now,
    );
    for (const p of planned) p.invoice.applyCredit(Money.of(p.amount, note.currency), note.id, p.applicationId, at);
    return applications;
  }
}
