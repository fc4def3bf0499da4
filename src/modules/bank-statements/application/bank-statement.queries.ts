import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { BankStatementJson } from '../domain/bank-statement';
import { BankStatementReadModel, ListBankStatementsFilters } from '../domain/bank-statement.read-model';

export class GetBankStatementQuery {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {}
}

export class ListBankStatementsQuery {
  constructor(
    readonly tenantId: string,
    readonly filters: ListBankStatementsFilters,
  ) {}
}

@QueryHandler(GetBankStatementQuery)
export class GetBankStatementHandler implements IQueryHandler<GetBankStatementQuery, BankStatementJson> {
  constructor(private readonly readModel: BankStatementReadModel) {}

  execute({ tenantId, id }: GetBankStatementQuery): Promise<BankStatementJson> {
    return this.readModel.get(tenantId, id);
  }
}

@QueryHandler(ListBankStatementsQuery)
export class ListBankStatementsHandler implements IQueryHandler<ListBankStatementsQuery, Page<BankStatementJson>> {
  constructor(private readonly readModel: BankStatementReadModel) {}

  execute({ tenantId, filters }: ListBankStatementsQuery): Promise<Page<BankStatementJson>> {
    return this.readModel.list(tenantId, filters);
  }
}
