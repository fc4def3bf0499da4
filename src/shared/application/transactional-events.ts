import { DomainEvent } from '../domain/aggregate-root';

export type TransactionalEventHandler = (event: DomainEvent) => Promise<void>;

/**
 * Port: handlers that must run inside the transaction that published an event (automatic
 * matching on payment.created), so that they commit or roll back with the change. Everything
 * else reacts from the outbox. The unit of work implements it.
 */
export abstract class TransactionalEvents {
  abstract subscribe(type: string, handler: TransactionalEventHandler): void;
  /** Writes events to the outbox only: the caller has done itself what the handlers of their types would do. */
  abstract enqueue(events: DomainEvent[]): void;
}
