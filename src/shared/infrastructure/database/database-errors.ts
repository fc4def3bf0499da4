/**
 * What a failed database call means for the request that made it (docs/adr/0029):
 * - `unavailable`: the server cannot be reached or dropped the connection (refused, terminated,
 *   restarting, shutting down, out of connection slots, pool timeout) — 503 `service_unavailable`;
 * - `timeout`: a statement ran into statement_timeout (57014) or lock_timeout (55P03) —
 *   503 `database_timeout`.
 * Either way the request did not complete and the client may retry after `Retry-After`.
 */
export type DatabaseFailure = 'unavailable' | 'timeout';

/** Socket-level failures (Node) and PostgreSQL's connection/operator-intervention classes. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: terminated by pg_terminate_backend or a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  '25P03', // idle_in_transaction_session_timeout: the session was closed under the transaction
]);
const TIMEOUT_CODES = new Set(['57014', '55P03']);
/** node-postgres and pg-pool say these in messages only (no code). */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|Cannot use a pool after calling end|terminating connection/i;

export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  for (let e = error as any, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && TIMEOUT_CODES.has(code)) return 'timeout';
    if (code && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return 'unavailable';
    // A Unix socket whose server is down (it removes the socket when it stops; ADR 0053): refused, as on TCP.
    if (code === 'ENOENT' && e.syscall === 'connect') return 'unavailable';
    if (!code && typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return 'unavailable';
    if (Array.isArray(e.errors) && e.errors.length > 0) {
      // AggregateError (a host resolving to several addresses, all refused)
      const inner = databaseFailure(e.errors[0]);
      if (inner) return inner;
    }
    e = e.driverError ?? e.cause;
  }
  return undefined;
}

/** Seconds a client is told to wait (Retry-After) after each kind of failure. */
export const RETRY_AFTER_SECONDS: Record<DatabaseFailure, number> = { unavailable: 5, timeout: 2 };
