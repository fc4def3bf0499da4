import { createHmac, createSecretKey, KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../domain/domain-error';
import { CursorPayload, DEFAULT_LIMIT, decodeCursor, encodeCursor, fingerprint, MAX_LIMIT, Page, SortSpec } from '../../domain/pagination';

/**
 * Cursors are signed (contract §5): `<payload>.<HMAC-SHA256 of it, 128 bits>`, with the key in
 * `system_settings` (CursorKeyLoader), shared by every instance. A cursor the service did not
 * issue — forged, tampered, or from another deployment — is a 400 before its contents are read,
 * and those contents are checked again against the sort column's type before they reach SQL.
 * The key is process-wide because the keyset helpers are plain functions every read model calls;
 * a process running several applications (tests) accepts any of their keys and signs with the last.
 */
const cursorKeys: KeyObject[] = [];
const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 1024;
const INVALID_CURSOR = () => ValidationError.field('cursor', 'cursor is not valid: pass next_cursor of the previous page unchanged');

export function installCursorKey(secret: string): void {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  if (!cursorKeys.some((k) => k.equals(key))) cursorKeys.unshift(key);
}

function signingKey(): KeyObject {
  // Outside an application (a script, a unit test) cursors are only good within this process.
  if (cursorKeys.length === 0) cursorKeys.push(createSecretKey(randomBytes(32)));
  return cursorKeys[0];
}

const mac = (text: string, key: KeyObject) => createHmac('sha256', key).update(text).digest().subarray(0, MAC_BYTES);

export function signCursor(payload: CursorPayload): string {
  const body = encodeCursor(payload);
  return `${body}.${mac(body, signingKey()).toString('base64url')}`;
}

/** The payload of a cursor this service signed for the same filters and sort; a 400 otherwise. */
export function openCursor(cursor: string, fingerprint: string): CursorPayload {
  const dot = cursor.lastIndexOf('.');
  if (cursor.length > MAX_CURSOR_LENGTH || dot <= 0) throw INVALID_CURSOR();
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
  if (given.length !== MAC_BYTES || !cursorKeys.some((key) => timingSafeEqual(mac(body, key), given))) throw INVALID_CURSOR();
  const payload = decodeCursor(body, fingerprint);
  if (typeof payload.v !== 'string' || !/^[a-z]{2,4}_[0-9a-z]{26}$/.test(payload.id)) throw INVALID_CURSOR();
  return payload;
}

/** What a sort value of each column type looks like as PostgreSQL prints it (`::text`). */
const SORT_VALUE: Record<SqlSortType, RegExp> = {
  timestamptz: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  bigint: /^-?\d{1,19}$/,
  text: /^[\s\S]{0,1000}$/,
};

/**
 * Keyset pagination in SQL (contract §5). A page is `WHERE tenant_id = $1 AND <filters> AND
 * (sort, id) > (last sort, last id) ORDER BY sort, id LIMIT n + 1`: with a (tenant_id, sort,
 * id) index that is a range scan from the cursor, so a deep page costs what the first costs.
 * Sort values travel in the cursor as PostgreSQL text (exact for timestamps' microseconds and
 * for bigints) and are cast back in the comparison.
 */
export type SqlSortType = 'timestamptz' | 'date' | 'text' | 'bigint';

export interface KeysetColumn {
  /** SQL expression of the sort column, e.g. `i.created_at` */
  sql: string;
  type: SqlSortType;
}

export interface ListParams {
  limit: number;
  cursor: CursorPayload | null;
  fingerprint: string;
}

/** limit 1–100 (default 25) and a cursor that must have been issued for the same filters and sort. */
export function parseListParams(raw: { limit?: string; cursor?: string }, filtersAndSort: Record<string, unknown>): ListParams {
  let limit = DEFAULT_LIMIT;
  if (raw.limit !== undefined) {
    limit = /^\d{1,4}$/.test(raw.limit) ? Number(raw.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw ValidationError.field('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const f = fingerprint(filtersAndSort);
  const cursor = raw.cursor === undefined ? null : openCursor(raw.cursor, f);
  return { limit, cursor, fingerprint: f };
}

/** `(col, id) < ($n, $m)` after the cursor, in the sort's direction (pushes its params). */
export function keysetCondition(column: KeysetColumn, idSql: string, sort: SortSpec<string>, cursor: CursorPayload | null, params: unknown[]): string {
  if (!cursor) return 'TRUE';
  if (!SORT_VALUE[column.type].test(String(cursor.v))) throw INVALID_CURSOR();
  params.push(cursor.v, cursor.id);
  const op = sort.direction === 'desc' ? '<' : '>';
  return `(${column.sql}, ${idSql}) ${op} ($${params.length - 1}::${column.type}, $${params.length})`;
}

export function keysetOrder(column: KeysetColumn, idSql: string, sort: SortSpec<string>): string {
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  return `${column.sql} ${dir}, ${idSql} ${dir}`;
}

/** The select-list item that carries a row's sort value into its cursor. */
export function keysetValue(column: KeysetColumn): string {
  return `(${column.sql})::text AS _keyset_value`;
}

/** Turns `limit + 1` fetched rows into a page; rows must carry `id` and `_keyset_value`. */
export function toPage<R extends { id: string; _keyset_value: string }, T>(rows: R[], params: ListParams, present: (row: R) => T): Page<T> {
  const hasMore = rows.length > params.limit;
  const pageRows = hasMore ? rows.slice(0, params.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(present),
    has_more: hasMore,
    next_cursor: hasMore && last ? signCursor({ v: last._keyset_value, id: last.id, f: params.fingerprint }) : null,
  };
}

/** `true`/`false` query flags; anything else is a 400. */
export function parseBooleanFlag(field: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw ValidationError.field(field, `${field} must be true or false`);
}
