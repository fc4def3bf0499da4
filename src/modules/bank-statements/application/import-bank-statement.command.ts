import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { newId } from '../../../shared/domain/ids';
import { BankFileFormat, BankFileRejectedError } from '../domain/bank-entry';
import { BankFileReader, BankFileSource } from '../domain/bank-file-reader';
import { BankFileTally, BankStatementJson, entryKey, MAX_ENTRY_ERRORS } from '../domain/bank-statement';
import { BankStatementRepository, StagedCredit } from '../domain/bank-statement.repository';

export class ImportBankStatementCommand {
  constructor(
    readonly tenantId: string,
    readonly format: BankFileFormat,
    readonly file: BankFileSource,
  ) {}
}

/** Credits staged per statement: bounded memory whatever the file's size. */
const STAGE_BATCH = 1000;

/**
 * Reads a bank file as it streams in and stages its credits, all in the request's transaction:
 * a file refused halfway (not well formed, not the format named, too many bad entries, too
 * large) rolls back and leaves nothing. The payments are then made by BankStatementProcessor,
 * group by group, after the 202.
 */
@CommandHandler(ImportBankStatementCommand)
export class ImportBankStatementHandler implements ICommandHandler<ImportBankStatementCommand, BankStatementJson> {
  constructor(
    private readonly statements: BankStatementRepository,
    private readonly reader: BankFileReader,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, format, file }: ImportBankStatementCommand): Promise<BankStatementJson> {
    const id = newId('bst');
    await this.statements.create({ tenantId, id, format, createdAt: this.clock.now() });
    const tally = new BankFileTally();
    let batch: StagedCredit[] = [];
    // One batch's INSERT in flight while the file's next batch is read (PostgreSQL and the parser on
    // both cores), never more: at most two batches in memory, and the statements in file order.
    let inFlight: Promise<void> = Promise.resolve();
    const stage = async (credits: StagedCredit[]) => {
      await inFlight;
      inFlight = this.statements.stage(tenantId, id, credits);
      inFlight.catch(() => undefined); // awaited below; a failure until then is not unhandled
    };
    try {
      for await (const item of this.reader.read(format, file)) {
        const credit = tally.add(item);
        if (tally.tooManyErrors) throw new BankFileRejectedError(`more than ${MAX_ENTRY_ERRORS} entries could not be read: not a ${format} file this service can import`);
        if (!credit) continue;
        batch.push({ ...credit, key: entryKey(credit) });
        if (batch.length >= STAGE_BATCH) {
          await stage(batch);
          batch = [];
        }
      }
      await stage(batch);
    } finally {
      // Nothing else runs on the transaction's connection until the last INSERT is answered (a file
      // refused halfway: its error is the one thrown, the transaction is rolled back after this).
      await inFlight.catch(() => undefined);
    }
    await inFlight;
    const staged = await this.statements.finishStaging(tenantId, id, tally);
    // Nothing to pay: done now (bank_statement.completed with the 202).
    return tally.credits === 0 ? ((await this.statements.complete(tenantId, id, this.clock.now())) ?? staged) : staged;
  }
}
