import { createHash } from 'node:crypto';
import { ValidationError } from './domain-error';

/**
 * Keyset pagination. A cursor carries the sort key and id of the last row of a page plus
 * a fingerprint of the filters and sort it was made with, so it cannot be replayed
 * against another query.
 */
export interface CursorPayload {
  /** value of the sort field on the last row (string, number or null) */
  v: string | number | null;
  /** id of the last row, the tie-breaker */
  id: string;
  /** fingerprint of filters + sort */
  f: string;
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export function encodeCursor(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string): CursorPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw ValidationError.field('cursor', 'cursor is not valid');
  }
  const p = payload as Partial<CursorPayload> | null;
  if (
    !p ||
    typeof p !== 'object' ||
    typeof p.id !== 'string' ||
    typeof p.f !== 'string' ||
    !(p.v === null || typeof p.v === 'string' || typeof p.v === 'number')
  ) {
    throw ValidationError.field('cursor', 'cursor is not valid');
  }
  if (p.f !== fingerprint) {
    throw ValidationError.field('cursor', 'cursor was issued for other filters or another sort', 'cursor_mismatch');
  }
  return p as CursorPayload;
}

/** Stable fingerprint of a query's filters and sort (key order does not matter). */
export function fingerprint(query: Record<string, unknown>): string {
  const keys = Object.keys(query)
    .filter((k) => k !== 'cursor' && k !== 'limit' && query[k] !== undefined)
    .sort();
  const canonical = keys.map((k) => `${k}=${JSON.stringify(query[k])}`).join('&');
  // 128 bits of SHA-256: no two filter sets a client could write share a fingerprint, so a
  // (signed) cursor cannot be carried over to another query.
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export interface SortSpec<F extends string> {
  field: F;
  direction: 'asc' | 'desc';
}

export function parseSort<F extends string>(value: string | undefined, allowed: readonly F[], fallback: string = '-created_at'): SortSpec<F> {
  const raw = value ?? fallback;
  const direction = raw.startsWith('-') ? 'desc' : 'asc';
  const field = raw.replace(/^[-+]/, '') as F;
  if (!allowed.includes(field)) {
    throw ValidationError.field('sort', `sort must be one of ${allowed.map((a) => `${a}, -${a}`).join(', ')}`);
  }
  return { field, direction };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
