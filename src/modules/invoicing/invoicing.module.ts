import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers';
import { SettingsModule } from '../settings';
import { CreateInvoiceHandler } from './application/create-invoice.command';
import { GetInvoiceHandler } from './application/get-invoice.query';
import { ListInvoicesHandler } from './application/list-invoices.query';
import { UpdateInvoiceHandler } from './application/update-invoice.command';
import { WriteOffInvoiceHandler } from './application/write-off-invoice.command';
import { InvoicesController } from './api/invoices.controller';
import { InvoiceNumberRepository } from './domain/invoice-number.repository';
import { InvoiceRepository } from './domain/invoice.repository';
import { InvoiceReadModel } from './application/invoice-read-model';
import { SqlInvoiceReadModel } from './infrastructure/sql-invoice-read-model';
import { TypeormInvoiceNumberRepository } from './infrastructure/typeorm-invoice-number.repository';
import { TypeormInvoiceRepository } from './infrastructure/typeorm-invoice.repository';

@Module({
  imports: [CustomersModule, SettingsModule],
  controllers: [InvoicesController],
  providers: [
    { provide: InvoiceRepository, useClass: TypeormInvoiceRepository },
    { provide: InvoiceNumberRepository, useClass: TypeormInvoiceNumberRepository },
    { provide: InvoiceReadModel, useClass: SqlInvoiceReadModel },
    CreateInvoiceHandler,
    UpdateInvoiceHandler,
    WriteOffInvoiceHandler,
    GetInvoiceHandler,
    ListInvoicesHandler,
  ],
  exports: [InvoiceRepository],
})
export class InvoicingModule {}
