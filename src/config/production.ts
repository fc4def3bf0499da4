import { readFileSync } from 'node:fs';

/**
 * Production mode (`NODE_ENV=production`, set in the Docker image; docs/adr/0031). The service
 * refuses to start unless it has a real database and a real token key: no embedded PostgreSQL,
 * no key generated into the database, no demo tenant, no demo credentials on the console.
 */

/** Shortest JWT_SECRET accepted in production: 32 bytes, the HS256 key size. */
export const MIN_JWT_SECRET_BYTES = 32;

/**
 * Values that were ever shown as examples or defaults in this repository (compose file, README,
 * benchmarks). Public strings: anyone could mint tokens with them, so production refuses them.
 */
export const PUBLIC_EXAMPLE_JWT_SECRETS: readonly string[] = [
  'change-me-in-production-to-a-long-random-string',
  'statement-bench-secret-0123456789abcdef',
  'replace-with-at-least-32-random-bytes',
  'secret',
  'changeme',
  'change-me',
];

export function isProduction(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NODE_ENV ?? '').trim().toLowerCase() === 'production';
}

/** Raised when the environment cannot run the service; its message is one sentence for the operator. */
export class StartupConfigError extends Error {
  override readonly name = 'StartupConfigError';
}

/**
 * The token key: JWT_SECRET, or the contents of the file JWT_SECRET_FILE names (a Docker or
 * Kubernetes secret; one trailing newline is dropped). Setting both is an error, as is a file
 * that cannot be read or is empty.
 */
export function readJwtSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const inline = env.JWT_SECRET || undefined;
  const file = env.JWT_SECRET_FILE || undefined;
  if (inline && file) throw new StartupConfigError('Set only one of JWT_SECRET and JWT_SECRET_FILE, not both.');
  if (!file) return inline;
  let value: string;
  try {
    value = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new StartupConfigError(`JWT_SECRET_FILE names ${file}, which cannot be read (${code}): point it at a readable file holding the token key.`);
  }
  value = value.replace(/\r?\n$/, '');
  if (value === '') throw new StartupConfigError(`JWT_SECRET_FILE names ${file}, which is empty: put at least ${MIN_JWT_SECRET_BYTES} random bytes in it.`);
  return value;
}

/**
 * What production mode needs, checked before anything starts. Returns nothing when the
 * environment is fine (or not production); throws a StartupConfigError naming what to set.
 */
export function checkProductionEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (!isProduction(env)) return;
  const missing: Array<[string, string]> = [];
  if (!env.DATABASE_URL) missing.push(['DATABASE_URL', 'DATABASE_URL to your PostgreSQL server']);
  if (!env.JWT_SECRET && !env.JWT_SECRET_FILE) {
    missing.push(['JWT_SECRET (or JWT_SECRET_FILE)', `JWT_SECRET to at least ${MIN_JWT_SECRET_BYTES} random bytes (e.g. openssl rand -base64 48) or JWT_SECRET_FILE to a file holding them`]);
  }
  if (missing.length > 0) {
    throw new StartupConfigError(`NODE_ENV=production needs ${missing.map(([name]) => name).join(' and ')} to be set: ${missing.map(([, how]) => how).join('; ')}.`);
  }
  const secret = readJwtSecret(env)!;
  const name = env.JWT_SECRET_FILE ? 'the key in JWT_SECRET_FILE' : 'JWT_SECRET';
  if (PUBLIC_EXAMPLE_JWT_SECRETS.includes(secret.trim())) {
    throw new StartupConfigError(`NODE_ENV=production refuses ${name}: it is a published example value; set it to at least ${MIN_JWT_SECRET_BYTES} random bytes (e.g. openssl rand -base64 48).`);
  }
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < MIN_JWT_SECRET_BYTES) {
    throw new StartupConfigError(`NODE_ENV=production refuses ${name}: it is ${bytes} bytes long; set it to at least ${MIN_JWT_SECRET_BYTES} random bytes (e.g. openssl rand -base64 48).`);
  }
}
