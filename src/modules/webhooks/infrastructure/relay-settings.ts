import { AppConfig } from '../../../config/config';

/**
 * How the relay runs. The contract's knobs come from AppConfig (WEBHOOK_RETRY_SCHEDULE,
 * WEBHOOK_TIMEOUT_MS, WEBHOOK_ALLOW_PRIVATE_URLS, WORKERS_ENABLED); the tuning ones below are
 * read from the environment here, so tests and benchmarks can shrink them.
 */
export interface RelaySettings {
  enabled: boolean;
  retrySchedule: number[];
  timeoutMs: number;
  /** deliveries in flight per instance */
  concurrency: number;
  /** deliveries in flight per endpoint, summed over instances (one slow receiver cannot take every slot) */
  endpointConcurrency: number;
  /** deliveries in flight per tenant, summed over instances (one tenant's dead receivers cannot take every slot) */
  tenantConcurrency: number;
  /** connections of the relay's own pool (separate from the API's DB_POOL_SIZE) */
  poolSize: number;
  /** how often an instance records that it is alive (its leases count only while it is) */
  heartbeatMs: number;
  /** an instance not heard from for this long is dead: its leases no longer count against any cap */
  deadAfterMs: number;
  /** outbox rows fanned out per transaction */
  batchSize: number;
  /** after an outbox NOTIFY, how long to gather further commits before fanning out (0: at once) */
  coalesceMs: number;
  /**
   * passes over the outbox that commits' notifications start: at most one per this many ms (the
   * window of a notification that comes sooner after the last pass lasts until then). Bounds what
   * the fan-out costs per event under write load; an event waits at most this long (or coalesceMs)
   * before its pass.
   */
  passIntervalMs: number;
  /** safety net for lost notifications and expired leases of crashed instances */
  pollIntervalMs: number;
  /** how long a claimed attempt belongs to its instance; longer than any attempt can take */
  leaseMs: number;
  /** on shutdown, how long in-flight attempts may still finish before they are abandoned */
  shutdownGraceMs: number;
  /** how often the invoice.overdue scan runs */
  overdueIntervalMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export function relaySettings(config: AppConfig, env: NodeJS.ProcessEnv = process.env): RelaySettings {
  const timeoutMs = config.webhookTimeoutMs;
  const heartbeatMs = int(env, 'WEBHOOK_RELAY_HEARTBEAT_MS', 2_000);
  return {
    enabled: config.workersEnabled,
    retrySchedule: config.webhookRetrySchedule,
    timeoutMs,
    // A waiting request costs a socket, not a thread: slots are cheap, and many of them plus the
    // tenant cap keep any one tenant's silent receivers from filling them all.
    concurrency: int(env, 'WEBHOOK_RELAY_CONCURRENCY', 256),
    endpointConcurrency: int(env, 'WEBHOOK_RELAY_ENDPOINT_CONCURRENCY', 8),
    tenantConcurrency: int(env, 'WEBHOOK_RELAY_TENANT_CONCURRENCY', 64),
    poolSize: int(env, 'WEBHOOK_RELAY_POOL_SIZE', 3),
    heartbeatMs,
    // five missed heartbeats; never shorter than two
    deadAfterMs: Math.max(int(env, 'WEBHOOK_RELAY_DEAD_AFTER_MS', heartbeatMs * 5), heartbeatMs * 2),
    batchSize: int(env, 'WEBHOOK_RELAY_BATCH_SIZE', 200),
    coalesceMs: int(env, 'WEBHOOK_RELAY_COALESCE_MS', 20, 0),
    passIntervalMs: int(env, 'WEBHOOK_RELAY_PASS_INTERVAL_MS', 100, 0),
    pollIntervalMs: int(env, 'WEBHOOK_RELAY_POLL_MS', 10_000),
    // The lease must outlive the request timeout by a wide margin: an attempt is never
    // claimed again while its first sender may still be talking to the receiver.
    leaseMs: Math.max(int(env, 'WEBHOOK_RELAY_LEASE_MS', timeoutMs + 30_000), timeoutMs + 1_000),
    shutdownGraceMs: int(env, 'WEBHOOK_RELAY_SHUTDOWN_GRACE_MS', Math.min(timeoutMs, 10_000), 0),
    overdueIntervalMs: int(env, 'INVOICE_OVERDUE_SCAN_MS', 300_000),
  };
}

export const RELAY_SETTINGS = Symbol('RELAY_SETTINGS');
