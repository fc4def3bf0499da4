import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { MAX_PAYER_TEXT } from '../../../shared/domain/payer';
import { GroupPaymentResult, GroupReads, RecordPaymentCommand, RecordPaymentGroupCommand, RecordPaymentInput, type PaymentSnapshot } from '../../payments';
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
    /** record the group's payments set-wise (RecordPaymentGroupCommand); false: one RecordPaymentCommand per credit */
    readonly setWise = true,
    /**
     * One stream of a window (the worker's plan): only these credits, beside other streams of the
     * import running at once. The lease is held, not renewed (the worker renewed it for the window),
     * and the import is not completed here.
     */
    readonly positions?: readonly number[],
    /** the worker's reads for the window's credits (by position), for the group to decide on */
    readonly reads?: { named: ReadonlyMap<number, GroupReads['named'][number]>; payers: GroupReads['payers'] },
    /**
     * Where the worker's reading of the import has reached (ADR 0046): `from`, every entry before it
     * processed, is where the group's pending credits are read from; the group sets `next`, where the
     * next group may start once this one has committed (0: from the start again).
     */
    readonly cursor: { from: number; next?: number } = { from: 0 },
  ) {}
}

/**
 * One group of an import's pending credits, in one transaction: claims their identities (an entry
 * imported before — by another import, or earlier in this file — is counted as existing), records
 * a payment for each new one with exactly the outcome of POST /payments (same matching,
 * identification, rows and events), set-wise for the whole group (RecordPaymentGroupCommand,
 * ADR 0037), and counts the results on the import. A crash rolls the group back whole: its
 * entries stay pending and the next worker takes them again.
 */
@CommandHandler(ProcessBankStatementGroupCommand)
export class ProcessBankStatementGroupHandler implements ICommandHandler<ProcessBankStatementGroupCommand, GroupOutcome> {
  constructor(
    private readonly statements: BankStatementRepository,
    private readonly commands: CommandBus,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, statementId, owner, leaseSeconds, groupSize, setWise, positions, reads, cursor }: ProcessBankStatementGroupCommand): Promise<GroupOutcome> {
    const leased = positions ? await this.statements.holdLease(tenantId, statementId, owner) : await this.statements.renewLease(tenantId, statementId, owner, leaseSeconds);
    if (!leased) return 'lease_lost';
    const credits = await this.statements.pending(tenantId, statementId, positions ? positions.length : groupSize, positions, cursor.from);
    // Every pending entry from `from` to the last read is recorded below (or nothing commits).
    cursor.next = credits.length > 0 && !positions ? credits[credits.length - 1].position + 1 : cursor.from;
    if (credits.length > 0) {
      const fresh = await this.statements.claimIdentities(tenantId, statementId, credits);
      const paying = credits.filter((c) => fresh.has(c.position));
      const results = setWise
        ? await this.commands.execute<RecordPaymentGroupCommand, GroupPaymentResult[]>(
            new RecordPaymentGroupCommand(
              tenantId,
              paying.map((c) => paymentInput(statementId, c)),
              reads && paying.every((c) => reads.named.has(c.position)) ? { named: paying.map((c) => reads.named.get(c.position)!), payers: reads.payers } : undefined,
            ),
          )
        : await this.oneByOne(tenantId, statementId, paying);
      const byPosition = new Map(paying.map((c, i) => [c.position, results[i]]));
      await this.statements.recordProcessed(
        tenantId,
        statementId,
        credits.map((credit): ProcessedCredit => {
          const result = byPosition.get(credit.position);
          if (!result) return existing(credit);
          // Refused before anything was written (the payment's own checks): one bad entry, the others go in.
          if ('error' in result) {
            return { position: credit.position, paymentId: null, matchStatus: null, error: { entry: credit.position, code: 'invalid_entry', message: result.error.message } };
          }
          return { position: credit.position, paymentId: result.paymentId, matchStatus: result.matchStatus };
        }),
      );
      if (positions || credits.length === groupSize) return 'more';
    }
    if (positions) return 'more';
    if (await this.statements.complete(tenantId, statementId, this.clock.now())) return 'completed';
    // Something before `from` is still pending after all (it cannot be, as the worker reads): read from the start again.
    cursor.next = 0;
    return 'more';
  }

  /** The per-entry path: one RecordPaymentCommand per credit, as POST /payments. */
  private async oneByOne(tenantId: string, statementId: string, credits: StagedCredit[]): Promise<GroupPaymentResult[]> {
    const results: GroupPaymentResult[] = [];
    for (const credit of credits) {
      try {
        const { id: paymentId } = await this.commands.execute<RecordPaymentCommand, PaymentSnapshot>(
          new RecordPaymentCommand(tenantId, paymentInput(statementId, credit)),
        );
        const statuses = await this.statements.matchStatuses(tenantId, [paymentId]);
        results.push({ paymentId, matchStatus: statuses.get(paymentId)! });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        results.push({ error });
      }
    }
    return results;
  }
}

function existing(credit: StagedCredit): ProcessedCredit {
  return { position: credit.position, paymentId: null, matchStatus: null };
}

/** The payment §14 makes of a credit: as a client would post it, with the import it came from in its metadata. */
export function paymentInput(statementId: string, credit: StagedCredit): RecordPaymentInput {
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

/**
 * Splits a window of credits into at most `streams` lists of positions that can be recorded at once
 * in separate transactions with the outcome of recording them one after the other: credits that may
 * touch a customer in common (`touched[i]`: what matching of credit i may read or change), or that
 * share an identity (the earlier one is created, the later counted existing), stay in one list, in
 * file order. Groups of related credits go to the list with the fewest credits so far.
 */
export function partitionWindow(credits: readonly StagedCredit[], touched: readonly (readonly string[])[], streams: number): number[][] {
  const parent = credits.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const owner = new Map<string, number>();
  credits.forEach((credit, i) => {
    for (const key of [`identity:${credit.account}\u0000${credit.key}`, ...touched[i].map((c) => `customer:${c}`)]) {
      const first = owner.get(key);
      if (first === undefined) owner.set(key, i);
      else parent[find(i)] = find(first);
    }
  });
  const groups = new Map<number, number[]>(); // by root, in order of first appearance
  credits.forEach((credit, i) => {
    const root = find(i);
    if (!groups.has(root)) groups.set(root, []);
    groups.get(root)!.push(credit.position);
  });
  const lists: number[][] = Array.from({ length: Math.max(1, streams) }, () => []);
  for (const group of groups.values()) lists.reduce((a, b) => (b.length < a.length ? b : a)).push(...group);
  return lists.filter((l) => l.length > 0).map((l) => l.sort((a, b) => a - b));
}
