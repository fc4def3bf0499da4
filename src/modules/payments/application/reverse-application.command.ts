import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { isValidId } from '../../../shared/domain/ids';
import { InvoiceRepository } from '../../invoicing';
import { TenantCalendar } from '../../settings';
import { CashApplication } from '../domain/cash-application.service';
import { ApplicationNotFoundError, PaymentNotFoundError } from '../domain/payment.errors';
import { PaymentRepository } from '../domain/payment.repository';

export class ReverseApplicationCommand {
  constructor(
    readonly tenantId: string,
    readonly paymentId: string,
    readonly applicationId: string,
  ) {}
}

/** Takes one application back: the invoice owes it again (partially_paid/open), the payment has it unapplied. */
@CommandHandler(ReverseApplicationCommand)
export class ReverseApplicationHandler implements ICommandHandler<ReverseApplicationCommand, void> {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, paymentId, applicationId }: ReverseApplicationCommand): Promise<void> {
    const payment = isValidId(paymentId, 'pay') ? await this.payments.findByIdForUpdate(tenantId, paymentId) : null;
    if (!payment) throw new PaymentNotFoundError(paymentId);
    const application = payment.application(applicationId);
    if (!application) throw new ApplicationNotFoundError(applicationId);
    const invoice = await this.invoices.findByIdForUpdate(tenantId, application.invoiceId);
    if (!invoice) throw new ApplicationNotFoundError(applicationId);
    CashApplication.reverse(payment, invoice, applicationId, await this.calendar.now(tenantId));
    await this.invoices.save(invoice);
    await this.payments.save(payment);
  }
}
