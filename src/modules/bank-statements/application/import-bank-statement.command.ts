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
    for await (const item of this.reader.read(format, file)) {
      const credit = tally.add(item);
      if (tally.tooManyErrors) throw new BankFileRejectedError(`more than ${MAX_ENTRY_ERRORS} entries could not be read: not a ${format} file this service can import`);
      if (!credit) continue;
      batch.push({ ...credit, key: entryKey(credit) });
      if (batch.length >= STAGE_BATCH) {
        await this.statements.stage(tenantId, id, batch);
        batch = [];
      }
    }
    await this.statements.stage(tenantId, id, batch);
    const staged = await this.statements.finishStaging(tenantId, id, tally);
    // Nothing to pay: done now (bank_statement.completed with the 202).
    return tally.credits === 0 ? ((await this.statements.complete(tenantId, id, this.clock.now())) ?? staged) : staged;
  }
}
