import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { isValidId } from '../../../shared/domain/ids';
import { RefundJson, presentRefund } from '../../../shared/domain/refund';
import { TenantCalendar } from '../../settings';
import { PaymentNotFoundError } from '../domain/payment.errors';
import { PaymentRepository } from '../domain/payment.repository';

export class RefundPaymentCommand {
  constructor(
    readonly tenantId: string,
    readonly paymentId: string,
    readonly amount: number,
    readonly reason?: string | null,
  ) {}
}

/**
 * `POST /payments/:id/refunds` (contract §15): pays back part of what is unapplied (409 beyond
 * it). Locks the payment, then the customer through the ledger debit — the order every
 * cash-application transaction keeps, so a refund and an application of one payment serialise.
 */
@CommandHandler(RefundPaymentCommand)
export class RefundPaymentHandler implements ICommandHandler<RefundPaymentCommand, RefundJson> {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, paymentId, amount, reason }: RefundPaymentCommand): Promise<RefundJson> {
    const payment = isValidId(paymentId, 'pay') ? await this.payments.findByIdForUpdate(tenantId, paymentId) : null;
    if (!payment) throw new PaymentNotFoundError(paymentId);
    const refund = payment.refund(amount, reason, await this.calendar.now(tenantId));
    await this.payments.save(payment);
    return presentRefund(refund);
  }
}
