import { decodeCursor, DEFAULT_LIMIT, encodeCursor, fingerprint, Page, parseSort } from '../../../shared/domain/pagination';

export interface ListParams {
  limit?: number;
  cursor?: string;
  sort?: string;
}

/**
 * Keyset pagination on (created_at, id), the only sort webhooks lists offer (contract §5).
 * Builds the WHERE/ORDER BY fragment; the cursor is bound to the filters it was issued for.
 */
export function createdAtKeyset(params: ListParams, filters: Record<string, unknown>, firstParam: number) {
  const sort = parseSort(params.sort, ['created_at'] as const);
  const limit = params.limit ?? DEFAULT_LIMIT;
  const print = fingerprint({ ...filters, sort: `${sort.direction}:${sort.field}` });
  const cursor = params.cursor === undefined ? null : decodeCursor(params.cursor, print);
  const op = sort.direction === 'desc' ? '<' : '>';
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  return {
    where: cursor ? `AND (created_at, id) ${op} ($${firstParam}::timestamptz, $${firstParam + 1})` : '',
    params: cursor ? [cursor.v, cursor.id] : [],
    orderBy: `ORDER BY created_at ${dir}, id ${dir}`,
    limit,
    page<T extends { id: string; created_at: string }>(rows: T[]): Page<T> {
      const data = rows.slice(0, limit);
      const last = data[data.length - 1];
      const hasMore = rows.length > limit;
      return { data, has_more: hasMore, next_cursor: hasMore ? encodeCursor({ v: last.created_at, id: last.id, f: print }) : null };
    },
  };
}
