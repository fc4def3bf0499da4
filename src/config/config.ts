import { resolve } from 'node:path';
import { readJwtSecret } from './production';

/** Typed configuration, read once from the environment. */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** EMBEDDED_PG_PORT; unset, the embedded server picks a free port (54329 when free) */
  embeddedPgPort: number | undefined;
  dbPoolSize: number;
  /** statement_timeout, lock_timeout, idle_in_transaction_session_timeout of every pool (0: not set) */
  dbTimeouts: DbTimeouts;
  jwtSecret: string | undefined;
  jwtTtlSeconds: number;
  /** how long a bearer token check trusts a cached client row (revocation delay) */
  clientCacheTtlMs: number;
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  tokenFailureLimit: number;
  tokenFailureWindowSeconds: number;
  /** tokens issued per client per minute */
  tokenIssueLimit: number;
  redisUrl: string | undefined;
  webhookRetrySchedule: number[];
  webhookAllowPrivateUrls: boolean;
  webhookTimeoutMs: number;
  workersEnabled: boolean;
  /** a bank import's worker lease: a crashed worker's import is taken over after this long */
  bankImportLeaseSeconds: number;
  /** how often an idle instance looks for bank imports to process (a new import wakes it at once) */
  bankImportPollMs: number;
  /** credits of a bank import turned into payments per transaction */
  bankImportGroupSize: number;
  /**
   * a group's payments recorded set-wise (RecordPaymentGroupCommand, ADR 0037); false: one
   * RecordPaymentCommand per credit, the path the set-wise one is tested against
   */
  bankImportSetWise: boolean;
  /**
   * set-wise only: each window of a group's size is split into up to this many streams of credits
   * with no customer in common, recorded in concurrent transactions (ADR 0037): a fixed count
   * (BANK_IMPORT_STREAMS=n), or the fewest of a count that follows the host's idle CPU (2; ADR 0056)
   */
  bankImportStreams: number;
  /**
   * the most streams: bankImportStreams when BANK_IMPORT_STREAMS is a number; unset or `auto`,
   * BANK_IMPORT_MAX_STREAMS (4 by default, 2–4), each window's count following the host's idle CPU (ADR 0056)
   */
  bankImportMaxStreams: number;
  logLevel: string;
  bodyLimitBytes: number;
  trustProxy: boolean;
  version: string;
}

export interface DbTimeouts {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
}

/** BANK_IMPORT_STREAMS: a number is a fixed count (1–4); unset or `auto`, 2 to BANK_IMPORT_MAX_STREAMS as the host's idle CPU allows (ADR 0056). */
function importStreams(env: NodeJS.ProcessEnv): { bankImportStreams: number; bankImportMaxStreams: number } {
  const raw = env.BANK_IMPORT_STREAMS;
  if (raw !== undefined && raw !== '' && raw !== 'auto') {
    const fixed = Math.min(4, Math.max(1, int('BANK_IMPORT_STREAMS', 2, env)));
    return { bankImportStreams: fixed, bankImportMaxStreams: fixed };
  }
  return { bankImportStreams: 2, bankImportMaxStreams: Math.min(4, Math.max(2, int('BANK_IMPORT_MAX_STREAMS', 4, env))) };
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

function bool(name: string, fallback: boolean, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const schedule = (env.WEBHOOK_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (schedule.some((n) => !Number.isFinite(n) || n < 0)) throw new Error('WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds');
  return {
    port: int('PORT', 3000, env),
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.DATA_DIR ?? './.data'),
    embeddedPgPort: int('EMBEDDED_PG_PORT', 0, env) || undefined,
    dbPoolSize: int('DB_POOL_SIZE', 10, env),
    dbTimeouts: {
      statementMs: int('DB_STATEMENT_TIMEOUT_MS', 30_000, env),
      lockMs: int('DB_LOCK_TIMEOUT_MS', 10_000, env),
      idleInTransactionMs: int('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, env),
    },
    jwtSecret: readJwtSecret(env),
    jwtTtlSeconds: int('JWT_TTL_SECONDS', 3600, env),
    clientCacheTtlMs: int('CLIENT_CACHE_TTL_MS', 30_000, env),
    rateLimitRequests: int('RATE_LIMIT_REQUESTS', 1000, env),
    rateLimitWindowSeconds: int('RATE_LIMIT_WINDOW_SECONDS', 60, env),
    tokenFailureLimit: int('TOKEN_FAILURE_LIMIT', 10, env),
    tokenFailureWindowSeconds: int('TOKEN_FAILURE_WINDOW_SECONDS', 900, env),
    tokenIssueLimit: int('TOKEN_ISSUE_LIMIT', 60, env),
    redisUrl: env.REDIS_URL || undefined,
    webhookRetrySchedule: schedule,
    webhookAllowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS', false, env),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 15_000, env),
    workersEnabled: bool('WORKERS_ENABLED', true, env),
    bankImportLeaseSeconds: Math.max(1, int('BANK_IMPORT_LEASE_SECONDS', 30, env)),
    bankImportPollMs: Math.max(10, int('BANK_IMPORT_POLL_MS', 2_000, env)),
    bankImportGroupSize: Math.min(5_000, Math.max(1, int('BANK_IMPORT_GROUP_SIZE', 200, env))),
    bankImportSetWise: bool('BANK_IMPORT_SET_WISE', true, env),
    ...importStreams(env),
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1_048_576, env),
    trustProxy: bool('TRUST_PROXY', false, env),
    version: process.env.npm_package_version ?? require('../../package.json').version,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
