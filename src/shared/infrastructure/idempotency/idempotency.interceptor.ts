import { createHash } from 'node:crypto';
import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { DomainError, ValidationError } from '../../domain/domain-error';
import { UnitOfWork } from '../database/unit-of-work';
import { toJson } from '../../http/json-reply';
import { AuthenticatedClient } from '../../http/authenticated-client';
import { StreamedBody } from '../../http/streamed-body';
import { REPLAYED_SECRET, ReplayedSecretSpec } from './replayed-secret.decorator';

const MAX_KEY_LENGTH = 255;
const TTL_HOURS = 24;
/** Headers that are part of the answer (a created invoice's version for If-Match), kept for replays. */
const REPLAYED_HEADERS = ['etag', 'location'] as const;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The body in one canonical form (object keys sorted, at every level), so that the same request
 * with its fields in another order is the same request. Numbers print as JSON.stringify prints
 * them: the body parser only accepts literals a double holds exactly (json-body.ts), so `1.50`
 * and `1.5` are one value. Recursion is bounded by the parser's depth limit.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const inUse = () => new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry later.');

/**
 * The key's transaction-scoped lock ($1) and, if taken, its live stored response ($2 tenant, $3
 * key): one row, `locked` false or the response's columns null when there is none.
 */
export const LOOKUP_SQL = `SELECT l.locked, k.request_hash, k.response_status, k.response_body, k.response_headers, k.secret_sha256
   FROM (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked) l
   LEFT JOIN idempotency_keys k ON l.locked AND k.tenant_id = $2 AND k.key = $3 AND k.expires_at > now()`;

/**
 * Stores the response under the key, replacing an expired one only: a live one means a first
 * request committed between this one's lookup and its lock (LOOKUP_SQL), so this request must not
 * commit (no row returned: 409, it rolls back). No `$` but its parameters (CommitWrite).
 */
export const STORE_SQL = `INSERT INTO idempotency_keys (tenant_id, key, request_hash, response_status, response_body, response_headers, secret_sha256, created_at, expires_at)
   VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, now(), now() + interval '${TTL_HOURS} hours')
   ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
     response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
     response_headers = EXCLUDED.response_headers, secret_sha256 = EXCLUDED.secret_sha256,
     created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
   WHERE idempotency_keys.expires_at <= now()
   RETURNING 1`;

/**
 * `Idempotency-Key` on POST (contract §11). The whole request runs in one transaction that
 * also stores the response under the key, so a replay returns exactly what was committed and
 * a crash leaves neither the change nor the key. A transaction-scoped advisory lock on the key
 * tells a concurrent duplicate that the first is still in flight (409). Errors are not stored:
 * they commit nothing, so retrying them is safe.
 *
 * A response that carries a secret (a webhook endpoint's signing secret, @ReplayedSecret) is
 * stored without it, with its SHA-256 only: a replay shows the resource's live secret while it
 * is still the one created, and `null` once the resource is deleted or the secret rotated
 * (docs/adr/0031), so a replay never reveals a secret that the resource no longer has.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly uow: UnitOfWork) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedClient }>();
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.user) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw ValidationError.field('Idempotency-Key', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
    }
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const tenantId = request.user.tenantId;
    // A streamed body (a bank file) is fingerprinted by its bytes' digest, known once it has been read.
    const body = request.body;
    const fingerprint = async () =>
      createHash('sha256')
        .update(`${request.method} ${request.url}\n${body instanceof StreamedBody ? `sha256:${await body.digest()}` : canonicalJson(body ?? null)}`)
        .digest('hex');

    return from(
      this.uow.run(async () => {
        // The key's lock and its stored response in one round trip. The read's snapshot is taken
        // before the lock: a first request that commits in between is not seen here, so the store
        // at commit refuses to replace a live response (see STORE_SQL) and this one answers 409.
        const [stored] = await this.uow.query<{
          locked: boolean;
          request_hash: string | null;
          response_status: number;
          response_body: unknown;
          response_headers: Record<string, string>;
          secret_sha256: string | null;
        }>(LOOKUP_SQL, [`idem:${tenantId}:${key}`, tenantId, key]);
        if (!stored.locked) throw inUse();
        const secretSpec: ReplayedSecretSpec | undefined = Reflect.getMetadata(REPLAYED_SECRET, context.getHandler());
        if (stored.request_hash !== null) {
          if (stored.request_hash !== (await fingerprint())) {
            throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with another request.');
          }
          reply.status(stored.response_status);
          for (const [name, value] of Object.entries(stored.response_headers)) reply.header(name, value);
          reply.header('Idempotent-Replayed', 'true');
          return this.withLiveSecret(stored.response_body, stored.secret_sha256, secretSpec, tenantId);
        }
        const status: number = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
        const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])));
        const { body: storedBody, secretSha256 } = withoutSecret(result, secretSpec);
        // Stored with the outbox's rows, in the transaction's last statement before commit.
        this.uow.writeAtCommit({
          sql: STORE_SQL,
          params: [tenantId, key, await fingerprint(), status, toJson(storedBody ?? null), JSON.stringify(headers), secretSha256],
          written: (rows) => {
            if (rows === 0) throw inUse();
          },
        });
        return result;
      }),
    );
  }

  /** The stored body with the secret the resource still has, or null when it has it no more. */
  private async withLiveSecret(body: unknown, secretSha256: string | null, spec: ReplayedSecretSpec | undefined, tenantId: string): Promise<unknown> {
    if (!secretSha256 || !isRecord(body)) return body;
    let live: string | null = null;
    if (spec && typeof body.id === 'string') {
      const [row] = await this.uow.query<{ secret: string }>(spec.liveSecretSql, [tenantId, body.id]);
      if (row && sha256(row.secret) === secretSha256) live = row.secret;
    }
    return { ...body, [spec?.field ?? 'secret']: live };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The response as stored: its secret replaced by null, remembered only by its SHA-256. */
function withoutSecret(result: unknown, spec: ReplayedSecretSpec | undefined): { body: unknown; secretSha256: string | null } {
  if (!spec || !isRecord(result) || typeof result[spec.field] !== 'string') return { body: result, secretSha256: null };
  return { body: { ...result, [spec.field]: null }, secretSha256: sha256(result[spec.field] as string) };
}
