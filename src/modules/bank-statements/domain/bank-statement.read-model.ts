import { Page } from '../../../shared/domain/pagination';
import { BankStatementJson } from './bank-statement';

export interface ListBankStatementsFilters {
  status?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** Reads imports straight into their public shape (a port: SQL in the infrastructure). */
export abstract class BankStatementReadModel {
  /** 404 (not_found) for an unknown, malformed or other tenant's id. */
  abstract get(tenantId: string, id: string): Promise<BankStatementJson>;
  abstract list(tenantId: string, filters: ListBankStatementsFilters): Promise<Page<BankStatementJson>>;
}
