import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { MAX_PAYER_TEXT } from '../../../shared/domain/payer';
import { RecordPaymentCommand, RecordPaymentInput } from '../../payments';
import { BankStatementRepository, ProcessedCredit, StagedCredit } from '../domain/bank-statement.repository';

export type GroupOutcome = 'more' | 'completed' | 'lease_lost';

export class ProcessBankStatementGroupCommand {
  constructor(
    readonly tenantId: string,
    readonly statementId: string,
    /** the worker holding the import's lease */
    readonly owner: string,
    readonly leaseSeconds: number,
    readonly groupSize: number,
  ) {}
}

/**
 * One group of an import's pending credits, in one transaction: claims their identities (an entry
 * imported before — by another import, or earlier in this file — is counted as existing), records
 * a payment for each new one exactly as POST /payments does (same command, so the same matching,
 * identification and events), and counts the results on the import. A crash rolls the group back
 * whole: its entries stay pending and the next worker takes them again.
 */
@CommandHandler(ProcessBankStatementGroupCommand)
export class ProcessBankStatementGroupHandler implements ICommandHandler<ProcessBankStatementGroupCommand, GroupOutcome> {
  constructor(
    private readonly statements: BankStatementRepository,
    private readonly commands: CommandBus,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, statementId, owner, leaseSeconds, groupSize }: ProcessBankStatementGroupCommand): Promise<GroupOutcome> {
    if (!(await this.statements.renewLease(tenantId, statementId, owner, leaseSeconds))) return 'lease_lost';
    const credits = await this.statements.pending(tenantId, statementId, groupSize);
    if (credits.length > 0) {
      const fresh = await this.statements.claimIdentities(tenantId, statementId, credits);
      const processed: ProcessedCredit[] = [];
      for (const credit of credits) processed.push(fresh.has(credit.position) ? await this.pay(tenantId, statementId, credit) : existing(credit));
      const statuses = await this.statements.matchStatuses(tenantId, processed.flatMap((p) => (p.paymentId ? [p.paymentId] : [])));
      await this.statements.recordProcessed(
        tenantId,
        statementId,
        processed.map((p) => (p.paymentId ? { ...p, matchStatus: statuses.get(p.paymentId) ?? null } : p)),
      );
      if (credits.length === groupSize) return 'more';
    }
    return (await this.statements.complete(tenantId, statementId, this.clock.now())) ? 'completed' : 'more';
  }

  private async pay(tenantId: string, statementId: string, credit: StagedCredit): Promise<ProcessedCredit> {
    try {
      const paymentId = await this.commands.execute<RecordPaymentCommand, string>(new RecordPaymentCommand(tenantId, paymentInput(statementId, credit)));
      return { position: credit.position, paymentId, matchStatus: null };
    } catch (error) {
      // Refused before anything was written (the payment's own checks): one bad entry, the others go in.
      if (!(error instanceof ValidationError)) throw error;
      return { position: credit.position, paymentId: null, matchStatus: null, error: { entry: credit.position, code: 'invalid_entry', message: error.message } };
    }
  }
}

function existing(credit: StagedCredit): ProcessedCredit {
  return { position: credit.position, paymentId: null, matchStatus: null };
}

/** The payment §14 makes of a credit: as a client would post it, with the import it came from in its metadata. */
function paymentInput(statementId: string, credit: StagedCredit): RecordPaymentInput {
  const bounded = (value: string | null, max: number) => (value === null ? null : value.slice(0, max));
  return {
    amount: credit.amount,
    currency: credit.currency,
    payment_date: credit.bookingDate,
    method: credit.method ?? 'other',
    reference: credit.reference,
    remittance: credit.remittance.map((line) => ({ invoice_number: line.invoiceNumber, ...(line.amount !== null ? { amount: line.amount } : {}) })),
    payer: { name: bounded(credit.payer.name, MAX_PAYER_TEXT), account: bounded(credit.payer.account, 64), bank_id: bounded(credit.payer.bankId, 64) },
    bank_entry_id: credit.bankEntryId,
    metadata: { bank_statement_id: statementId, bank_account: credit.account },
  };
}
