import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments';
import { BankStatementsController } from './api/bank-statements.controller';
import { GetBankStatementHandler, ListBankStatementsHandler } from './application/bank-statement.queries';
import { ImportBankStatementHandler } from './application/import-bank-statement.command';
import { ProcessBankStatementGroupHandler } from './application/process-bank-statement-group.command';
import { BankFileReader } from './domain/bank-file-reader';
import { BankStatementReadModel } from './domain/bank-statement.read-model';
import { BankStatementRepository } from './domain/bank-statement.repository';
import { BankStatementWorker } from './infrastructure/bank-statement.worker';
import { SqlBankStatementReadModel } from './infrastructure/sql-bank-statement.read-model';
import { StreamingBankFileReader } from './infrastructure/streaming-bank-file-reader';
import { TypeormBankStatementRepository } from './infrastructure/typeorm-bank-statement.repository';

/** Bank files in (contract §14): streaming parsers, staged imports, a worker that makes the payments. */
@Module({
  imports: [PaymentsModule],
  controllers: [BankStatementsController],
  providers: [
    { provide: BankStatementRepository, useClass: TypeormBankStatementRepository },
    { provide: BankStatementReadModel, useClass: SqlBankStatementReadModel },
    { provide: BankFileReader, useClass: StreamingBankFileReader },
    ImportBankStatementHandler,
    ProcessBankStatementGroupHandler,
    GetBankStatementHandler,
    ListBankStatementsHandler,
    BankStatementWorker,
  ],
})
export class BankStatementsModule {}
