import { TenantSettings } from '../../settings';
import { PaymentToMatch } from '../domain/matching/cash-matching.policy';
import { Payment } from '../domain/payment.aggregate';

/** What automatic matching decides on for a payment, under its tenant's settings (§13): one shape for a request and a bank import group. */
export function paymentToMatch(payment: Payment, settings: TenantSettings): PaymentToMatch {
  return {
    amount: payment.amountUnapplied.amount,
    currency: payment.currency,
    customerId: payment.customerId,
    autoMatch: payment.autoMatch,
    remittance: payment.remittance,
    reference: payment.reference,
    payer: payment.payer,
    payerNameMatching: payment.payer?.name ? settings.payerNameMatching : false,
    shortPayTolerance: { of: (amountDue: number) => settings.shortPayTolerance(amountDue), max: settings.shortPayTolerance(Number.MAX_SAFE_INTEGER) },
  };
}
