import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError, PreconditionFailedError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { CustomerRepository } from '../../customers';
import { TenantCalendar } from '../../settings';
import { InvoiceCustomer, InvoicePatch } from '../domain/invoice.aggregate';
import { InvoiceRepository } from '../domain/invoice.repository';
import { toInvoiceCustomer } from './create-invoice.command';

export interface UpdateInvoiceInput extends Omit<InvoicePatch, 'customer'> {
  customer_id?: string;
}

export class UpdateInvoiceCommand {
  /** `ifMatch`: versions from If-Match (`*` = any); undefined when the header was not sent. */
  constructor(
    readonly tenantId: string,
    readonly invoiceId: string,
    readonly input: UpdateInvoiceInput,
    readonly ifMatch?: number[] | '*',
  ) {}
}

@CommandHandler(UpdateInvoiceCommand)
export class UpdateInvoiceHandler implements ICommandHandler<UpdateInvoiceCommand, void> {
  constructor(
    private readonly invoices: InvoiceRepository,
    private readonly customers: CustomerRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, invoiceId, input, ifMatch }: UpdateInvoiceCommand): Promise<void> {
    // Lock order everywhere: invoice rows (by id), then the customer row (ledger writes and
    // figures), as payments do (payment, invoices, customer), so the two cannot deadlock.
    const invoice = isValidId(invoiceId, 'inv') ? await this.invoices.findByIdForUpdate(tenantId, invoiceId) : null;
    if (!invoice) throw new NotFoundError('Invoice', invoiceId);
    if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.includes(invoice.version)) {
      throw new PreconditionFailedError(`The invoice is at version ${invoice.version}; If-Match does not match it.`);
    }
    const { customer_id, ...rest } = input;
    const patch: InvoicePatch = { ...rest };
    if (customer_id !== undefined) patch.customer = await this.targetCustomer(tenantId, customer_id, invoice.status === 'draft');
    invoice.update(patch, await this.calendar.now(tenantId));
    await this.invoices.save(invoice);
  }

  /** Only drafts may change customer; otherwise the aggregate refuses the field (409) before looking at it. */
  private async targetCustomer(tenantId: string, customerId: string, isDraft: boolean): Promise<InvoiceCustomer> {
    if (!isDraft) return { id: customerId, name: '', email: null, currency: '', paymentTermsDays: 0 };
    const customer = isValidId(customerId, 'cus') ? await this.customers.findById(tenantId, customerId) : null;
    if (!customer) throw new NotFoundError('Customer', customerId);
    return toInvoiceCustomer(customer);
  }
}
