import { UnitOfWork } from './unit-of-work';

/** Per-tenant counters of generated document numbers (INV-000001…, CN-000001…). */
export type DocumentCounterTable = 'invoice_number_counters' | 'credit_note_number_counters';

/**
 * The tenant's next counter value, from one row per tenant incremented with an upsert that keeps
 * the row locked until the transaction ends: concurrent creations queue on it and a rollback
 * returns its number, so the numbers are unique and gapless (not MAX()+1, which races).
 */
export async function nextDocumentNumber(uow: UnitOfWork, table: DocumentCounterTable, tenantId: string): Promise<string> {
  const [row] = await uow.query<{ last_value: string }>(
    `INSERT INTO ${table} (tenant_id, last_value) VALUES ($1, 1)
     ON CONFLICT (tenant_id) DO UPDATE SET last_value = ${table}.last_value + 1
     RETURNING last_value::text`,
    [tenantId],
  );
  return row.last_value.padStart(6, '0');
}
