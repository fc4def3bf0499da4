import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { TenantCalendar } from '../../settings';
import { InvoiceRepository } from '../domain/invoice.repository';
import { WriteOffRequest } from '../domain/write-off';

export class WriteOffInvoiceCommand {
  constructor(
    readonly tenantId: string,
    readonly invoiceId: string,
    readonly request: WriteOffRequest,
  ) {}
}

/**
 * `POST /invoices/:id/write-off` (contract §15). Locks the invoice, then its customer through the
 * ledger credit (the lock order every command keeps: invoices by id, then the customer).
 */
@CommandHandler(WriteOffInvoiceCommand)
export class WriteOffInvoiceHandler implements ICommandHandler<WriteOffInvoiceCommand, void> {
  constructor(
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, invoiceId, request }: WriteOffInvoiceCommand): Promise<void> {
    const invoice = isValidId(invoiceId, 'inv') ? await this.invoices.findByIdForUpdate(tenantId, invoiceId) : null;
    if (!invoice) throw new NotFoundError('Invoice', invoiceId);
    invoice.writeOff(request, await this.calendar.now(tenantId));
    await this.invoices.save(invoice);
  }
}
