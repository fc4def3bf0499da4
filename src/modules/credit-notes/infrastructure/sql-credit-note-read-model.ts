import { Injectable } from '@nestjs/common';
import { ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page, parseSort } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, parseListParams, toPage } from '../../../shared/infrastructure/query/keyset';
import { CreditNoteListFilters, CreditNoteReadModel } from '../application/credit-note-read-model';
import { CreditNoteNotFoundError } from '../domain/credit-note.errors';
import { CREDIT_NOTE_STATUSES, CreditNoteJson, CreditNoteStatus, presentCreditNote } from '../domain/credit-note.snapshot';
import { CREDIT_NOTE_APPLICATIONS_JOIN, CREDIT_NOTE_SELECT, CreditNoteMapper, CreditNoteRow } from './credit-note.mapper';

const SORTS = ['created_at', 'amount'] as const;
type SortField = (typeof SORTS)[number];
/** Each served by a (tenant_id, column, id) index (migration 1763801510000). */
const SORT_COLUMNS: Record<SortField, KeysetColumn> = {
  created_at: { sql: 'n.created_at', type: 'timestamptz' },
  amount: { sql: 'n.amount', type: 'bigint' },
};

/** Credit notes read straight from SQL into their public JSON, tenant first, keyset pages. */
@Injectable()
export class SqlCreditNoteReadModel extends CreditNoteReadModel {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async get(tenantId: string, id: string): Promise<CreditNoteJson> {
    if (!isValidId(id, 'cn')) throw new CreditNoteNotFoundError(id);
    const [row] = await this.uow.query<CreditNoteRow>(
      `SELECT ${CREDIT_NOTE_SELECT} FROM credit_notes n ${CREDIT_NOTE_APPLICATIONS_JOIN} WHERE n.tenant_id = $1 AND n.id = $2`,
      [tenantId, id],
    );
    if (!row) throw new CreditNoteNotFoundError(id);
    return presentCreditNote(CreditNoteMapper.toSnapshot(row));
  }

  /**
   * `invoice_id`: the credit notes issued for the invoice or applied to it. `status`: a comma list.
   * Unknown ids simply match nothing (another tenant's too).
   */
  async list(tenantId: string, q: CreditNoteListFilters): Promise<Page<CreditNoteJson>> {
    const statuses = q.status === undefined ? undefined : [...new Set(q.status.split(',').map((s) => s.trim()))].sort();
    if (statuses && statuses.some((s) => !(CREDIT_NOTE_STATUSES as readonly string[]).includes(s))) {
      throw ValidationError.field('status', `status must be a comma list of ${CREDIT_NOTE_STATUSES.join(', ')}`);
    }
    const sort = parseSort<SortField>(q.sort, SORTS);
    const list = parseListParams(q, { customer_id: q.customer_id, invoice_id: q.invoice_id, status: statuses, sort: `${sort.direction}:${sort.field}` });

    const params: unknown[] = [tenantId];
    const where = ['n.tenant_id = $1'];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (statuses) add((p) => `n.status = ANY(${p}::text[])`, statuses as CreditNoteStatus[]);
    if (q.customer_id !== undefined) add((p) => `n.customer_id = ${p}`, q.customer_id);
    if (q.invoice_id !== undefined) {
      add(
        // A handful of notes per invoice, found by index, then sorted: not a scan of the tenant's notes.
        (p) => `n.id IN (SELECT i.id FROM credit_notes i WHERE i.tenant_id = $1 AND i.invoice_id = ${p}
                         UNION SELECT f.credit_note_id FROM credit_note_applications f WHERE f.tenant_id = $1 AND f.invoice_id = ${p})`,
        q.invoice_id,
      );
    }
    const column = SORT_COLUMNS[sort.field];
    where.push(keysetCondition(column, 'n.id', sort, list.cursor, params));
    const rows = await this.uow.query<CreditNoteRow & { _keyset_value: string }>(
      `SELECT ${CREDIT_NOTE_SELECT}, ${keysetValue(column)}
         FROM credit_notes n ${CREDIT_NOTE_APPLICATIONS_JOIN}
        WHERE ${where.join(' AND ')}
        ORDER BY ${keysetOrder(column, 'n.id', sort)}
        LIMIT ${list.limit + 1}`,
      params,
    );
    return toPage(rows, list, (row) => presentCreditNote(CreditNoteMapper.toSnapshot(row)));
  }
}
