import { parseSort } from '../../../shared/domain/pagination';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, ListParams as Keyset, parseListParams } from '../../../shared/infrastructure/query/keyset';
import { ListParams } from '../application/webhook-read-model';

const CREATED_AT: KeysetColumn = { sql: 'created_at', type: 'timestamptz' };

/**
 * Keyset pagination on (created_at, id), the only sort webhooks lists offer (contract §5), built
 * on the shared keyset helpers: `params` are the query's parameters so far (the cursor's are
 * appended), and the cursor is bound to `filters`.
 */
export function createdAtKeyset(list: ListParams, filters: Record<string, unknown>, params: unknown[]) {
  const sort = parseSort(list.sort, ['created_at'] as const);
  const keyset: Keyset = parseListParams(
    { limit: list.limit === undefined ? undefined : String(list.limit), cursor: list.cursor },
    { ...filters, sort: `${sort.direction}:${sort.field}` },
  );
  return {
    keyset,
    select: keysetValue(CREATED_AT),
    where: keysetCondition(CREATED_AT, 'id', sort, keyset.cursor, params),
    orderBy: keysetOrder(CREATED_AT, 'id', sort),
  };
}
