import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { InvoiceJson, InvoiceRepository } from '../../invoicing';
import { TenantCalendar } from '../../settings';
import { CreditApplication } from '../domain/credit-application.service';
import { CreditNoteNotFoundError } from '../domain/credit-note.errors';
import { CreditNoteRepository } from '../domain/credit-note.repository';
import { CreditNoteJson } from '../domain/credit-note.snapshot';

export interface ApplyCreditNoteResult {
  credit_note: CreditNoteJson;
  /** the invoices changed, in the order they were named */
  invoices: InvoiceJson[];
}

export class ApplyCreditNoteCommand {
  constructor(
    readonly tenantId: string,
    readonly creditNoteId: string,
    readonly applications: { invoice_id: string; amount?: number | null }[],
  ) {}
}

/**
 * `POST /credit-notes/:id/apply` (contract §15): all or nothing, with the rules and errors of a
 * manual payment match (§8). Locks the credit note, then the invoices in id order (then the
 * customer, through the invoices' figures), checks every line, and only then changes anything.
 */
@CommandHandler(ApplyCreditNoteCommand)
export class ApplyCreditNoteHandler implements ICommandHandler<ApplyCreditNoteCommand, ApplyCreditNoteResult> {
  constructor(
    private readonly notes: CreditNoteRepository,
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, creditNoteId, applications }: ApplyCreditNoteCommand): Promise<ApplyCreditNoteResult> {
    if (applications.length === 0) throw ValidationError.field('applications', 'applications must name at least one invoice');
    const ids = applications.map((a) => a.invoice_id);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate) throw ValidationError.field('applications', `invoice ${duplicate} is listed twice`);

    const note = isValidId(creditNoteId, 'cn') ? await this.notes.findByIdForUpdate(tenantId, creditNoteId) : null;
    if (!note) throw new CreditNoteNotFoundError(creditNoteId);
    const malformed = ids.find((id) => !isValidId(id, 'inv'));
    if (malformed) throw new NotFoundError('Invoice', malformed);
    const invoices = await this.invoices.findByIdsForUpdate(tenantId, ids);
    const byId = new Map(invoices.map((i) => [i.id, i]));
    const missing = ids.find((id) => !byId.has(id));
    if (missing) throw new NotFoundError('Invoice', missing);

    const at = await this.calendar.now(tenantId);
    CreditApplication.apply(note, applications.map((a) => ({ invoice: byId.get(a.invoice_id)!, amount: a.amount ?? null })), at);
    for (const invoice of invoices) await this.invoices.save(invoice);
    await this.notes.save(note);
    return { credit_note: note.toJSON(), invoices: ids.map((id) => byId.get(id)!.toJSON(at.today)) };
  }
}
