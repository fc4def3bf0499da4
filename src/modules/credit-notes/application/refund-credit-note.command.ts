import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { isValidId } from '../../../shared/domain/ids';
import { RefundJson, presentRefund } from '../../../shared/domain/refund';
import { TenantCalendar } from '../../settings';
import { CreditNoteNotFoundError } from '../domain/credit-note.errors';
import { CreditNoteRepository } from '../domain/credit-note.repository';

export class RefundCreditNoteCommand {
  constructor(
    readonly tenantId: string,
    readonly creditNoteId: string,
    readonly amount: number,
    readonly reason?: string | null,
  ) {}
}

/**
 * `POST /credit-notes/:id/refunds` (contract §15): pays back part of the remaining credit (409
 * beyond it). Locks the credit note, then the customer through the ledger debit.
 */
@CommandHandler(RefundCreditNoteCommand)
export class RefundCreditNoteHandler implements ICommandHandler<RefundCreditNoteCommand, RefundJson> {
  constructor(
    private readonly notes: CreditNoteRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, creditNoteId, amount, reason }: RefundCreditNoteCommand): Promise<RefundJson> {
    const note = isValidId(creditNoteId, 'cn') ? await this.notes.findByIdForUpdate(tenantId, creditNoteId) : null;
    if (!note) throw new CreditNoteNotFoundError(creditNoteId);
    const refund = note.refund(amount, reason, await this.calendar.now(tenantId));
    await this.notes.save(note);
    return presentRefund(refund);
  }
}
