import { ValidationError } from '../../domain/domain-error';
import { CursorPayload, DEFAULT_LIMIT, decodeCursor, encodeCursor, fingerprint, MAX_LIMIT, Page, SortSpec } from '../../domain/pagination';

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
  const cursor = raw.cursor === undefined ? null : decodeCursor(raw.cursor, f);
  if (cursor && typeof cursor.v !== 'string') throw ValidationError.field('cursor', 'cursor is not valid');
  return { limit, cursor, fingerprint: f };
}

/** `(col, id) < ($n, $m)` after the cursor, in the sort's direction (pushes its params). */
export function keysetCondition(column: KeysetColumn, idSql: string, sort: SortSpec<string>, cursor: CursorPayload | null, params: unknown[]): string {
  if (!cursor) return 'TRUE';
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
    next_cursor: hasMore && last ? encodeCursor({ v: last._keyset_value, id: last.id, f: params.fingerprint }) : null,
  };
}

/** `true`/`false` query flags; anything else is a 400. */
export function parseBooleanFlag(field: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw ValidationError.field(field, `${field} must be true or false`);
}
