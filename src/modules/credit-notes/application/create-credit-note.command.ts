import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ConflictError, InvalidStateError, NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { isOpenStatus } from '../../../shared/domain/receivable';
import { CustomerRepository } from '../../customers';
import { InvoiceRepository, LineItemInput } from '../../invoicing';
import { TenantCalendar } from '../../settings';
import { CreditApplication } from '../domain/credit-application.service';
import { CreditNote } from '../domain/credit-note.aggregate';
import { CreditNoteNumberRepository, CreditNoteRepository } from '../domain/credit-note.repository';

export interface CreateCreditNoteInput {
  customer_id: string;
  invoice_id?: string | null;
  currency?: string;
  reason: string;
  memo?: string | null;
  line_items?: LineItemInput[] | null;
  amount?: number | null;
}

export class CreateCreditNoteCommand {
  constructor(
    readonly tenantId: string,
    readonly input: CreateCreditNoteInput,
  ) {}
}

/**
 * `POST /credit-notes` (contract §15). With `invoice_id` the note is applied to that invoice at
 * once, up to its amount due (nothing when the invoice is paid or uncollectible: all of it stays
 * the customer's credit); drafts and voided invoices cannot be credited. Lock order: the invoice
 * first, then the number counter and the new note, then the customer (ledger and figures).
 * Returns the new credit note's id.
 */
@CommandHandler(CreateCreditNoteCommand)
export class CreateCreditNoteHandler implements ICommandHandler<CreateCreditNoteCommand, string> {
  constructor(
    private readonly notes: CreditNoteRepository,
    private readonly numbers: CreditNoteNumberRepository,
    private readonly customers: CustomerRepository,
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, input }: CreateCreditNoteCommand): Promise<string> {
    const customer = isValidId(input.customer_id, 'cus') ? await this.customers.findById(tenantId, input.customer_id) : null;
    if (!customer) throw new NotFoundError('Customer', input.customer_id);
    const invoiceId = input.invoice_id ?? null;
    const invoice = invoiceId === null ? null : isValidId(invoiceId, 'inv') ? await this.invoices.findByIdForUpdate(tenantId, invoiceId) : null;
    if (invoiceId !== null && !invoice) throw new NotFoundError('Invoice', invoiceId);
    if (invoice && invoice.customerId !== customer.id) throw new ConflictError(`Invoice ${invoice.id} belongs to another customer than the credit note.`);
    if (invoice && (invoice.status === 'draft' || invoice.status === 'void')) {
      throw new InvalidStateError(`Invoice ${invoice.number} is ${invoice.status}; only finalized invoices can be credited.`);
    }

    const at = await this.calendar.now(tenantId);
    const note = CreditNote.create({
      tenantId,
      number: await this.numbers.next(tenantId),
      customer: { id: customer.id, currency: customer.currency },
      invoiceId,
      currency: input.currency,
      reason: input.reason,
      memo: input.memo,
      lineItems: input.line_items,
      amount: input.amount,
      at,
    });
    if (invoice && isOpenStatus(invoice.status) && invoice.amountDue.amount > 0) {
      CreditApplication.apply(note, [{ invoice, amount: Math.min(invoice.amountDue.amount, note.amount.amount) }], at);
    }
    await this.notes.save(note);
    if (invoice) await this.invoices.save(invoice);
    return note.id;
  }
}
