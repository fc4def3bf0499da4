/** What other modules may use from payments. */
export { PaymentsModule } from './payments.module';
export { PAYMENT_REFUNDED, PAYMENT_CREATED, PAYMENT_MATCHED, PAYMENT_APPLICATION_REVERSED, PAYMENT_NEEDS_REVIEW } from './domain/payment.events';
export { type PaymentJson, type PaymentSnapshot } from './domain/payment.snapshot';
export { RecordPaymentCommand, type RecordPaymentInput } from './application/record-payment.command';
export { RecordPaymentGroupCommand, type GroupPaymentResult } from './application/record-payment-group.command';
export { PaymentGroupPlanner } from './application/payment-group.planner';
export { type GroupReads } from './application/matching-ports';
