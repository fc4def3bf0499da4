import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { isValidId } from '../../../shared/domain/ids';
import { TenantCalendar } from '../../settings';
import { CreditNoteNotFoundError } from '../domain/credit-note.errors';
import { CreditNoteRepository } from '../domain/credit-note.repository';

export class VoidCreditNoteCommand {
  constructor(
    readonly tenantId: string,
    readonly creditNoteId: string,
  ) {}
}

/** `POST /credit-notes/:id/void`: only a credit note nothing was applied from or refunded (409 otherwise). */
@CommandHandler(VoidCreditNoteCommand)
export class VoidCreditNoteHandler implements ICommandHandler<VoidCreditNoteCommand, void> {
  constructor(
    private readonly notes: CreditNoteRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, creditNoteId }: VoidCreditNoteCommand): Promise<void> {
    const note = isValidId(creditNoteId, 'cn') ? await this.notes.findByIdForUpdate(tenantId, creditNoteId) : null;
    if (!note) throw new CreditNoteNotFoundError(creditNoteId);
    note.void(await this.calendar.now(tenantId));
    await this.notes.save(note);
  }
}
