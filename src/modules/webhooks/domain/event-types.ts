import { ValidationError } from '../../../shared/domain/domain-error';

/**
 * The public event types a subscription may name (contract §10). Stable strings, never class
 * names. `credit_note.refunded` is beyond the contract's list: a credit note's refund changes what
 * a client sees of it, and every such change emits its event.
 */
export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.finalized',
  'invoice.paid',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'invoice.overdue',
  'invoice.reminder',
  'invoice.written_off',
  'payment.created',
  'payment.matched',
  'payment.needs_review',
  'payment.refunded',
  'payment.application_reversed',
  'credit_note.created',
  'credit_note.applied',
  'credit_note.voided',
  'credit_note.refunded',
  'bank_statement.completed',
  'dispute.opened',
  'dispute.resolved',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The ping `POST /webhooks/:id/test` sends. It is addressed to one endpoint only, so no filter
 * (not even `*`) ever matches it and it cannot be subscribed to.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

const TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
const FAMILIES: ReadonlySet<string> = new Set(EVENT_TYPES.map((t) => t.split('.')[0]));

/** `invoice.paid`, `invoice.*` or `*`. */
export function isEventFilter(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (value === '*' || TYPES.has(value)) return true;
  return value.endsWith('.*') && FAMILIES.has(value.slice(0, -2));
}

/** Validates a subscription's `events` list; duplicates are dropped, the order kept. */
export function parseEventFilters(values: unknown): string[] {
  if (!Array.isArray(values) || values.length === 0) {
    throw ValidationError.field('events', 'events must be a non-empty array of event types, family wildcards (invoice.*) or *');
  }
  const errors = values
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => !isEventFilter(v))
    .map(({ v, i }) => ({
      field: `events[${i}]`,
      code: 'unknown_event_type',
      message: `${JSON.stringify(v)} is not a known event type; use one of ${EVENT_TYPES.join(', ')}, a family wildcard (invoice.*) or *`,
    }));
  if (errors.length > 0) throw new ValidationError(errors[0].message, errors);
  return [...new Set(values as string[])];
}

/**
 * Whether a subscription's filters select an event type. Wildcards only ever match the public
 * types above: events other modules record for themselves are not sent anywhere.
 */
export function matchesEventFilter(filters: readonly string[], type: string): boolean {
  if (!TYPES.has(type)) return false;
  const family = `${type.split('.')[0]}.*`;
  return filters.some((f) => f === '*' || f === type || f === family);
}
