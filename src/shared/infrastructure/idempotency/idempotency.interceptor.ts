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

const MAX_KEY_LENGTH = 255;
const TTL_HOURS = 24;
/** Headers that are part of the answer (a created invoice's version for If-Match), kept for replays. */
const REPLAYED_HEADERS = ['etag', 'location'] as const;

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

/**
 * `Idempotency-Key` on POST (contract §11). The whole request runs in one transaction that
 * also stores the response under the key, so a replay returns exactly what was committed and
 * a crash leaves neither the change nor the key. A transaction-scoped advisory lock on the key
 * tells a concurrent duplicate that the first is still in flight (409). Errors are not stored:
 * they commit nothing, so retrying them is safe.
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
        const [{ locked }] = await this.uow.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
          [`idem:${tenantId}:${key}`],
        );
        if (!locked) {
          throw new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry later.');
        }
        const [stored] = await this.uow.query<{ request_hash: string; response_status: number; response_body: unknown; response_headers: Record<string, string> }>(
          `SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
            WHERE tenant_id = $1 AND key = $2 AND expires_at > now()`,
          [tenantId, key],
        );
        if (stored) {
          if (stored.request_hash !== (await fingerprint())) {
            throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with another request.');
          }
          reply.status(stored.response_status);
          for (const [name, value] of Object.entries(stored.response_headers)) reply.header(name, value);
          reply.header('Idempotent-Replayed', 'true');
          return stored.response_body;
        }
        const status: number = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
        const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (reply.hasHeader(name) ? [[name, String(reply.getHeader(name))]] : [])));
        await this.uow.query(
          `INSERT INTO idempotency_keys (tenant_id, key, request_hash, response_status, response_body, response_headers, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, now(), now() + interval '${TTL_HOURS} hours')
           ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
             response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
             response_headers = EXCLUDED.response_headers, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
          [tenantId, key, await fingerprint(), status, toJson(result ?? null), JSON.stringify(headers)],
        );
        return result;
      }),
    );
  }
}
