import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings';
import { CreateCustomerHandler } from './application/create-customer.command';
import { GetCustomerHandler } from './application/get-customer.query';
import { ListCustomersHandler } from './application/list-customers.query';
import { UpdateCustomerHandler } from './application/update-customer.command';
import { CustomersController } from './api/customers.controller';
import { StatementController } from './api/statement.controller';
import { GetCustomerStatementHandler } from './application/get-customer-statement.query';
import { StatementPdfRenderer } from './infrastructure/statement-pdf.renderer';
import { StatementReadModel } from './application/statement-read-model';
import { SqlStatementReadModel } from './infrastructure/sql-statement-read-model';
import { CustomerRepository } from './domain/customer.repository';
import { PayerDirectory } from './domain/payer-directory';
import { SqlPayerDirectory } from './infrastructure/sql-payer-directory';
import { CustomerReadModel } from './application/customer-read-model';
import { SqlCustomerReadModel } from './infrastructure/sql-customer-read-model';
import { LedgerWriter } from './infrastructure/ledger.writer';
import { OverdueFiguresJob } from './infrastructure/overdue-figures.job';
import { TypeormCustomerRepository } from './infrastructure/typeorm-customer.repository';

@Module({
  imports: [SettingsModule],
  controllers: [CustomersController, StatementController],
  providers: [
    { provide: CustomerRepository, useClass: TypeormCustomerRepository },
    { provide: PayerDirectory, useClass: SqlPayerDirectory },
    LedgerWriter,
    OverdueFiguresJob,
    { provide: CustomerReadModel, useClass: SqlCustomerReadModel },
    CreateCustomerHandler,
    UpdateCustomerHandler,
    GetCustomerHandler,
    ListCustomersHandler,
    { provide: StatementReadModel, useClass: SqlStatementReadModel },
    StatementPdfRenderer,
    GetCustomerStatementHandler,
  ],
  exports: [CustomerRepository, PayerDirectory, LedgerWriter],
})
export class CustomersModule {}
