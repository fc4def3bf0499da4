import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CashApplicationStatsJson, CashApplicationStatsReadModel } from '../domain/cash-application-stats';

export class GetCashApplicationStatsQuery {
  constructor(
    readonly tenantId: string,
    readonly range: { from?: string; to?: string },
  ) {}
}

@QueryHandler(GetCashApplicationStatsQuery)
export class GetCashApplicationStatsHandler implements IQueryHandler<GetCashApplicationStatsQuery, CashApplicationStatsJson> {
  constructor(private readonly readModel: CashApplicationStatsReadModel) {}

  execute({ tenantId, range }: GetCashApplicationStatsQuery): Promise<CashApplicationStatsJson> {
    return this.readModel.stats(tenantId, range);
  }
}
