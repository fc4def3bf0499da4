import { DomainEvent } from '../../../shared/domain/aggregate-root';
import type { Payment } from './payment.aggregate';

/** Stable public event names (contract §10); never derived from class names. */
export const PAYMENT_CREATED = 'payment.created';
export const PAYMENT_MATCHED = 'payment.matched';
export const PAYMENT_APPLICATION_REVERSED = 'payment.application_reversed';
export const PAYMENT_NEEDS_REVIEW = 'payment.needs_review';
export const PAYMENT_REFUNDED = 'payment.refunded';

function event(type: string, payment: Payment, at: Date, previous?: Record<string, unknown>, detail?: Record<string, unknown>): DomainEvent {
  return {
    type,
    aggregateType: 'payment',
    aggregateId: payment.id,
    tenantId: payment.tenantId,
    occurredAt: at,
    data: { object: payment.toJSON() as unknown as Record<string, unknown>, ...(previous ? { previous_attributes: previous } : {}), ...detail },
  };
}

export const PaymentEvents = {
  /** Recorded with the payment; automatic matching runs on it inside the same transaction. */
  created: (payment: Payment, at: Date): DomainEvent => event(PAYMENT_CREATED, payment, at),
  /** Whenever applications are made, automatically or by hand. */
  matched: (payment: Payment, previous: Record<string, unknown>, at: Date): DomainEvent => event(PAYMENT_MATCHED, payment, at, previous),
  /** previous_attributes.applications still lists the reversed application. */
  applicationReversed: (payment: Payment, previous: Record<string, unknown>, at: Date): DomainEvent =>
    event(PAYMENT_APPLICATION_REVERSED, payment, at, previous),
  /** Automatic matching found several answers and applied none: a person has to pick (contract §8). */
  needsReview: (payment: Payment, previous: Record<string, unknown>, at: Date): DomainEvent => event(PAYMENT_NEEDS_REVIEW, payment, at, previous),
  /** Part of what was unapplied paid back (contract §15); `data.refund` is the refund. */
  refunded: (payment: Payment, previous: Record<string, unknown>, at: Date, refund: object): DomainEvent =>
    event(PAYMENT_REFUNDED, payment, at, previous, { refund }),
};
