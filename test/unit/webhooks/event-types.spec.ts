import { EVENT_TYPES, isEventFilter, matchesEventFilter, parseEventFilters, TEST_EVENT_TYPE } from '../../../src/modules/webhooks/domain/event-types';
import { ValidationError } from '../../../src/shared/domain/domain-error';

describe('event filters', () => {
  it('knows the public event types', () => {
    expect(EVENT_TYPES).toHaveLength(21);
    expect(EVENT_TYPES).toContain('invoice.reminder');
    expect(EVENT_TYPES).toContain('payment.needs_review');
    expect(EVENT_TYPES).toContain('bank_statement.completed');
    expect(EVENT_TYPES).toContain('invoice.written_off');
    expect(EVENT_TYPES).toContain('credit_note.voided');
    expect(EVENT_TYPES).toContain('payment.refunded');
    expect(EVENT_TYPES).toContain('invoice.marked_uncollectible');
    expect(EVENT_TYPES).toContain('payment.application_reversed');
  });

  it('matches an exact type only to itself', () => {
    expect(matchesEventFilter(['invoice.paid'], 'invoice.paid')).toBe(true);
    expect(matchesEventFilter(['invoice.paid'], 'invoice.created')).toBe(false);
    expect(matchesEventFilter(['invoice.paid'], 'payment.created')).toBe(false);
  });

  it('matches a family wildcard to every type of that family', () => {
    const families = ['invoice', 'payment', 'dispute', 'credit_note'];
    for (const type of EVENT_TYPES) {
      for (const family of families) {
        expect(matchesEventFilter([`${family}.*`], type)).toBe(type.startsWith(`${family}.`));
      }
    }
  });

  it('matches * to every public type', () => {
    for (const type of EVENT_TYPES) expect(matchesEventFilter(['*'], type)).toBe(true);
  });

  it('matches when any filter of the list matches', () => {
    expect(matchesEventFilter(['dispute.opened', 'payment.*'], 'payment.matched')).toBe(true);
    expect(matchesEventFilter(['dispute.opened', 'payment.*'], 'dispute.resolved')).toBe(false);
  });

  it('never matches types that are not public, not even with * (test pings, other modules\' internal events)', () => {
    expect(matchesEventFilter(['*'], TEST_EVENT_TYPE)).toBe(false);
    expect(matchesEventFilter(['*', 'customer.*'], 'customer.created')).toBe(false);
    expect(matchesEventFilter(['invoice.*'], 'invoice.secret_internal')).toBe(false);
    expect(matchesEventFilter(['invoice.*'], 'invoice')).toBe(false);
  });

  it('accepts types, family wildcards and * as filters, nothing else', () => {
    for (const ok of ['*', 'invoice.*', 'payment.*', 'dispute.*', ...EVENT_TYPES]) expect(isEventFilter(ok)).toBe(true);
    for (const bad of ['', '**', 'invoice', 'invoice.', '.*', 'customer.*', 'invoice.sent', 'Invoice.paid', 'invoice.paid ', '*.paid', 'webhook.test', 1, null]) {
      expect(isEventFilter(bad)).toBe(false);
    }
  });

  it('validates a list: unknown entries name their index, duplicates are dropped in order', () => {
    expect(parseEventFilters(['payment.*', '*', 'payment.*', 'invoice.paid'])).toEqual(['payment.*', '*', 'invoice.paid']);
    try {
      parseEventFilters(['invoice.paid', 'invoice.sent', 'nope']);
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).errors!.map((x) => x.field)).toEqual(['events[1]', 'events[2]']);
    }
    expect(() => parseEventFilters([])).toThrow(ValidationError);
    expect(() => parseEventFilters('invoice.paid')).toThrow(ValidationError);
  });
});
