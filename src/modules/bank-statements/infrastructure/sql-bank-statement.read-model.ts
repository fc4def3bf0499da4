import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page, parseSort } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, parseListParams, toPage } from '../../../shared/infrastructure/query/keyset';
import { BankStatementJson } from '../domain/bank-statement';
import { BankStatementReadModel, ListBankStatementsFilters } from '../domain/bank-statement.read-model';
import { BANK_STATEMENT_FROM, BANK_STATEMENT_READ_COLUMNS, BankStatementRow, presentBankStatement } from './bank-statement.sql';

const STATUSES = ['processing', 'completed'];
/** Served by bank_statements_created_idx (tenant_id, created_at, id). */
const CREATED_AT: KeysetColumn = { sql: 's.created_at', type: 'timestamptz' };

@Injectable()
export class SqlBankStatementReadModel extends BankStatementReadModel {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async get(tenantId: string, id: string): Promise<BankStatementJson> {
    if (!isValidId(id, 'bst')) throw new NotFoundError('Bank statement', id);
    const [row] = await this.uow.query<BankStatementRow>(`SELECT ${BANK_STATEMENT_READ_COLUMNS} FROM ${BANK_STATEMENT_FROM} WHERE s.tenant_id = $1 AND s.id = $2`, [
      tenantId,
      id,
    ]);
    if (!row) throw new NotFoundError('Bank statement', id);
    return presentBankStatement(row);
  }

  async list(tenantId: string, filters: ListBankStatementsFilters): Promise<Page<BankStatementJson>> {
    if (filters.status !== undefined && !STATUSES.includes(filters.status)) {
      throw ValidationError.field('status', `status must be one of ${STATUSES.join(', ')}`);
    }
    const sort = parseSort(filters.sort, ['created_at'] as const);
    const list = parseListParams(filters, { status: filters.status, sort: `${sort.direction}:${sort.field}` });
    const params: unknown[] = [tenantId];
    const where = ['s.tenant_id = $1'];
    if (filters.status !== undefined) {
      params.push(filters.status);
      where.push(`s.status = $${params.length}`);
    }
    where.push(keysetCondition(CREATED_AT, 's.id', sort, list.cursor, params));
    const rows = await this.uow.query<BankStatementRow & { _keyset_value: string }>(
      `SELECT ${BANK_STATEMENT_READ_COLUMNS}, ${keysetValue(CREATED_AT)} FROM ${BANK_STATEMENT_FROM}
        WHERE ${where.join(' AND ')}
        ORDER BY ${keysetOrder(CREATED_AT, 's.id', sort)}
        LIMIT ${list.limit + 1}`,
      params,
    );
    return toPage(rows, list, presentBankStatement);
  }
}
