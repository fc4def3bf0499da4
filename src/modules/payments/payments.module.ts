import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers';
import { InvoicingModule } from '../invoicing';
import { SettingsModule } from '../settings';
import { CashApplicationController } from './api/cash-application.controller';
import { PaymentsController } from './api/payments.controller';
import { GetCashApplicationStatsHandler } from './application/get-cash-application-stats.query';
import { CashApplicationStatsReadModel } from './domain/cash-application-stats';
import { SqlCashApplicationStatsReadModel } from './infrastructure/sql-cash-application-stats.read-model';
import { AutoMatchPaymentHandler } from './application/auto-match-payment.handler';
import { GetPaymentHandler } from './application/get-payment.query';
import { ListPaymentsHandler } from './application/list-payments.query';
import { MatchPaymentHandler } from './application/match-payment.command';
import { RecordPaymentHandler } from './application/record-payment.command';
import { RefundPaymentHandler } from './application/refund-payment.command';
import { ReverseApplicationHandler } from './application/reverse-application.command';
import { MatchOutcomeRecorder } from './domain/match-outcome.recorder';
import { PaymentRepository } from './domain/payment.repository';
import { PaymentReadModel } from './application/payment-read-model';
import { SqlPaymentReadModel } from './infrastructure/sql-payment-read-model';
import { PrometheusMatchOutcomeRecorder } from './infrastructure/prometheus-match-outcome.recorder';
import { SqlMatchCandidateSource } from './infrastructure/sql-match-candidate.source';
import { AdvisoryCustomerMatchingLock } from './infrastructure/advisory-customer-matching.lock';
import { CustomerMatchingLock, GroupMatchCandidates, MatchCandidates } from './application/matching-ports';
import { RecordPaymentGroupHandler } from './application/record-payment-group.command';
import { PaymentGroupPlanner } from './application/payment-group.planner';
import { SqlGroupMatchCandidates } from './infrastructure/sql-group-match-candidates';
import { TypeormPaymentRepository } from './infrastructure/typeorm-payment.repository';

@Module({
  imports: [CustomersModule, InvoicingModule, SettingsModule],
  controllers: [PaymentsController, CashApplicationController],
  providers: [
    { provide: PaymentRepository, useClass: TypeormPaymentRepository },
    { provide: MatchCandidates, useClass: SqlMatchCandidateSource },
    { provide: GroupMatchCandidates, useClass: SqlGroupMatchCandidates },
    { provide: CustomerMatchingLock, useClass: AdvisoryCustomerMatchingLock },
    { provide: PaymentReadModel, useClass: SqlPaymentReadModel },
    { provide: MatchOutcomeRecorder, useClass: PrometheusMatchOutcomeRecorder },
    { provide: CashApplicationStatsReadModel, useClass: SqlCashApplicationStatsReadModel },
    GetCashApplicationStatsHandler,
    AutoMatchPaymentHandler,
    RecordPaymentHandler,
    RecordPaymentGroupHandler,
    PaymentGroupPlanner,
    MatchPaymentHandler,
    ReverseApplicationHandler,
    RefundPaymentHandler,
    GetPaymentHandler,
    ListPaymentsHandler,
  ],
  exports: [PaymentGroupPlanner],
})
export class PaymentsModule {}
