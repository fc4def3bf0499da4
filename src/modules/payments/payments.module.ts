import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers';
import { InvoicingModule } from '../invoicing';
import { SettingsModule } from '../settings';
import { PaymentsController } from './api/payments.controller';
import { AutoMatchPaymentHandler } from './application/auto-match-payment.handler';
import { GetPaymentHandler } from './application/get-payment.query';
import { ListPaymentsHandler } from './application/list-payments.query';
import { MatchPaymentHandler } from './application/match-payment.command';
import { RecordPaymentHandler } from './application/record-payment.command';
import { ReverseApplicationHandler } from './application/reverse-application.command';
import { PaymentRepository } from './domain/payment.repository';
import { PaymentReadModel } from './application/payment-read-model';
import { SqlPaymentReadModel } from './infrastructure/sql-payment-read-model';
import { SqlMatchCandidateSource } from './infrastructure/sql-match-candidate.source';
import { AdvisoryCustomerMatchingLock } from './infrastructure/advisory-customer-matching.lock';
import { CustomerMatchingLock, MatchCandidates } from './application/matching-ports';
import { TypeormPaymentRepository } from './infrastructure/typeorm-payment.repository';

@Module({
  imports: [CustomersModule, InvoicingModule, SettingsModule],
  controllers: [PaymentsController],
  providers: [
    { provide: PaymentRepository, useClass: TypeormPaymentRepository },
    { provide: MatchCandidates, useClass: SqlMatchCandidateSource },
    { provide: CustomerMatchingLock, useClass: AdvisoryCustomerMatchingLock },
    { provide: PaymentReadModel, useClass: SqlPaymentReadModel },
    AutoMatchPaymentHandler,
    RecordPaymentHandler,
    MatchPaymentHandler,
    ReverseApplicationHandler,
    GetPaymentHandler,
    ListPaymentsHandler,
  ],
})
export class PaymentsModule {}
