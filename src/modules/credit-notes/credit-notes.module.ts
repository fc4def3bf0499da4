import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers';
import { InvoicingModule } from '../invoicing';
import { SettingsModule } from '../settings';
import { CreditNotesController } from './api/credit-notes.controller';
import { ApplyCreditNoteHandler } from './application/apply-credit-note.command';
import { CreateCreditNoteHandler } from './application/create-credit-note.command';
import { CreditNoteReadModel } from './application/credit-note-read-model';
import { GetCreditNoteHandler } from './application/get-credit-note.query';
import { ListCreditNotesHandler } from './application/list-credit-notes.query';
import { RefundCreditNoteHandler } from './application/refund-credit-note.command';
import { VoidCreditNoteHandler } from './application/void-credit-note.command';
import { CreditNoteNumberRepository, CreditNoteRepository } from './domain/credit-note.repository';
import { SqlCreditNoteReadModel } from './infrastructure/sql-credit-note-read-model';
import { TypeormCreditNoteNumberRepository, TypeormCreditNoteRepository } from './infrastructure/typeorm-credit-note.repository';

@Module({
  imports: [CustomersModule, InvoicingModule, SettingsModule],
  controllers: [CreditNotesController],
  providers: [
    { provide: CreditNoteRepository, useClass: TypeormCreditNoteRepository },
    { provide: CreditNoteNumberRepository, useClass: TypeormCreditNoteNumberRepository },
    { provide: CreditNoteReadModel, useClass: SqlCreditNoteReadModel },
    CreateCreditNoteHandler,
    ApplyCreditNoteHandler,
    VoidCreditNoteHandler,
    RefundCreditNoteHandler,
    GetCreditNoteHandler,
    ListCreditNotesHandler,
  ],
})
export class CreditNotesModule {}
