import { LedgerEntryInput } from '../../customers';
import { Payment, PaymentLedgerMovement } from '../domain/payment.aggregate';

/** The customer's ledger line for a movement of the payment (the payment received, or a refund out of it). */
export function paymentLedgerEntry(payment: Payment, movement: PaymentLedgerMovement): LedgerEntryInput {
  return {
    tenantId: payment.tenantId,
    customerId: movement.customerId,
    entryDate: movement.date,
    type: movement.type,
    sourceType: movement.refundId ? 'refund' : 'payment',
    sourceId: movement.refundId ?? payment.id,
    reference: movement.refundId ?? payment.reference ?? payment.id,
    description: movement.refundId ? `Refund of payment ${payment.reference ?? payment.id}` : `Payment received (${payment.method})`,
    debit: movement.debit,
    credit: movement.credit,
  };
}
