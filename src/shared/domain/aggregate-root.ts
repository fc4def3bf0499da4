/**
 * A fact the domain recorded. `type` is the stable public event name (`invoice.paid`),
 * never a class name; `data` is what webhooks carry as `data`.
 */
export interface DomainEvent {
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly tenantId: string;
  readonly occurredAt: Date;
  /** `object` and `previous_attributes` (contract §10), and what an event adds beside them (`write_off`, `refund`, `reminder`). */
  readonly data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown>; [detail: string]: unknown };
}

/**
 * Aggregates only record events; the unit of work pulls them on save, dispatches the
 * in-transaction handlers and writes them to the outbox before commit.
 */
export abstract class AggregateRoot {
  private events: DomainEvent[] = [];

  /** Optimistic-lock version; incremented by the repository on every save. */
  version = 0;

  protected record(event: DomainEvent): void {
    this.events.push(event);
  }

  pullEvents(): DomainEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  peekEvents(): readonly DomainEvent[] {
    return this.events;
  }
}
