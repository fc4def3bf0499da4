import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Payer } from '../../../shared/domain/payer';
import { CustomerRepository } from '../../customers';
import { InvoiceJson, InvoiceRepository } from '../../invoicing';
import { TenantCalendar } from '../../settings';
import { CashApplication } from '../domain/cash-application.service';
import { InvoiceNotFoundForMatchError, PaymentNotFoundError } from '../domain/payment.errors';
import { PaymentRepository } from '../domain/payment.repository';
import { PaymentJson } from '../domain/payment.snapshot';

export interface MatchPaymentResult {
  payment: PaymentJson;
  /** the invoices changed, in the order they were named */
  invoices: InvoiceJson[];
}

export class MatchPaymentCommand {
  constructor(
    readonly tenantId: string,
    readonly paymentId: string,
    readonly applications: { invoice_id: string; amount?: number | null }[],
  ) {}
}

/**
 * Applies a payment by hand, all or nothing (contract §8). Locks the payment, then the
 * invoices in id order, checks every line, and only then changes anything.
 * Returns the payment and the invoices as they are now.
 */
@CommandHandler(MatchPaymentCommand)
export class MatchPaymentHandler implements ICommandHandler<MatchPaymentCommand, MatchPaymentResult> {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
    private readonly customers: CustomerRepository,
  ) {}

  async execute({ tenantId, paymentId, applications }: MatchPaymentCommand): Promise<MatchPaymentResult> {
    if (applications.length === 0) throw ValidationError.field('applications', 'applications must name at least one invoice');
    const ids = applications.map((a) => a.invoice_id);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate) throw ValidationError.field('applications', `invoice ${duplicate} is listed twice`);

    const payment = isValidId(paymentId, 'pay') ? await this.payments.findByIdForUpdate(tenantId, paymentId) : null;
    if (!payment) throw new PaymentNotFoundError(paymentId);
    const missingFormat = ids.find((id) => !isValidId(id, 'inv'));
    if (missingFormat) throw new InvoiceNotFoundForMatchError(missingFormat);
    const invoices = await this.invoices.findByIdsForUpdate(tenantId, ids);
    const byId = new Map(invoices.map((i) => [i.id, i]));
    const missing = ids.find((id) => !byId.has(id));
    if (missing) throw new InvoiceNotFoundForMatchError(missing);

    const at = await this.calendar.now(tenantId);
    CashApplication.apply(
      payment,
      applications.map((a) => ({ invoice: byId.get(a.invoice_id)!, amount: a.amount ?? null })),
      'manual',
      'manual',
      at,
    );
    for (const invoice of invoices) await this.invoices.save(invoice);
    await this.payments.save(payment);
    await this.learnPayer(tenantId, payment.customerId, payment.payer, at.now);
    return { payment: payment.toJSON(), invoices: ids.map((id) => byId.get(id)!.toJSON(at.today)) };
  }

  /**
   * §14 learning: a person said whose this payer's money is, so its account and name now
   * identify that customer. The customer row is locked last, as in every cash-application
   * transaction (payment, invoices, customer).
   */
  private async learnPayer(tenantId: string, customerId: string | null, payer: Payer | null, now: Date): Promise<void> {
    if (!customerId || !payer || (payer.account === null && payer.name === null)) return;
    const customer = await this.customers.findByIdForUpdate(tenantId, customerId);
    if (!customer) return;
    customer.learnPayer(payer, now);
    await this.customers.save(customer);
  }
}
