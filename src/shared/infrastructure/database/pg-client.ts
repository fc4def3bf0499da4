import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';

const logger = new Logger('PgClient');

/**
 * node-postgres' Client with an 'error' listener from its construction on, for every pool of the
 * service (TypeORM's, the relay's, the rate limiter's: their `Client` option). docs/adr/0055.
 *
 * PostgreSQL ending a connection while no statement runs on it (pg_terminate_backend, a restart,
 * idle_in_transaction_session_timeout) is an 'error' event on its Client, and an 'error' event
 * with no listener ends the process. pg-pool listens while a client is idle, and the code that
 * checks one out listens while it holds it (TypeORM's query runners, the unit of work, the
 * relay, the statement reader) — but pg-pool takes its listener off before it hands the client
 * over, and a caller that awaits `pool.connect()` gets it one promise turn later: a FATAL read in
 * the same chunk as the ReadyForQuery that ends a new connection's startup (or a pooled query's
 * ReadyForQuery that hands its client straight to a waiter) is emitted in between, to nobody.
 * No caller can close that gap (it does not have the client yet); this listener does. The client
 * is unusable from then on (node-postgres marks it so): its holder's next statement fails at once
 * and is answered 503, and pg-pool destroys it on release instead of keeping it.
 */
export class ServiceClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', (error: Error) => {
      // Alone: nobody else heard it (a client between pool and caller). Otherwise its holder or
      // the pool reports it already.
      if (this.listenerCount('error') === 1) {
        const name = (this as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters?.application_name;
        logger.warn(`connection ${name ?? ''} lost while no one held it: ${error.message}; it is dropped`);
      }
    });
  }
}
