import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { CurrentClient, RequireScopes } from '../../auth';
import { GetCashApplicationStatsQuery } from '../application/get-cash-application-stats.query';
import { CashApplicationStatsJson } from '../domain/cash-application-stats';

export class CashApplicationStatsRequest {
  @ApiPropertyOptional({ example: '2026-11-01', description: 'First day (tenant\'s local date); default 29 days before `to`' })
  @IsOptional()
  @IsString()
  from?: string;
  @ApiPropertyOptional({ example: '2026-11-30', description: 'Last day, inclusive; default the tenant\'s today' })
  @IsOptional()
  @IsString()
  to?: string;
}

export class CashApplicationStatsResponse {
  @ApiProperty({ example: '2026-11-01' }) from: string;
  @ApiProperty({ example: '2026-11-30' }) to: string;
  @ApiProperty({ example: 1000, description: 'Payments recorded in the period that automatic matching looked at' }) payments: number;
  @ApiProperty({ example: 870, description: 'Applied by the rules alone (matched or partial by an automatic rule)' }) straight_through: number;
  @ApiProperty({ type: Number, format: 'double', example: 0.87, minimum: 0, maximum: 1 }) straight_through_rate: number;
  @ApiProperty({ example: 40, description: 'Waiting for a person now' }) needs_review: number;
  @ApiProperty({ example: 80 }) unmatched: number;
  @ApiProperty({ example: 10, description: 'Matched by a person' }) manual: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { remittance: 500, reference: 250, exact_amount: 100, none: 80 } })
  by_rule: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { request: 600, payer_account: 200, none: 50 } })
  by_customer_source: Record<string, number>;
}

@ApiTags('payments')
@ApiAuthenticated()
@Controller('cash-application')
export class CashApplicationController {
  constructor(private readonly queries: QueryBus) {}

  @Get('stats')
  @RequireScopes('payments:read')
  @ApiOperation({
    summary: 'Cash-application figures of the tenant over a period',
    description: 'Straight-through rate, what waits for review, and payments by rule and by how their customer was found. Also as Prometheus counters on /metrics (cash_application_payments_total).',
  })
  @ApiResponse({ status: 200, type: CashApplicationStatsResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'a date that is not a date, from after to, more than 366 days' })
  stats(@CurrentClient() client: AuthenticatedClient, @Query() query: CashApplicationStatsRequest): Promise<CashApplicationStatsJson> {
    return this.queries.execute(new GetCashApplicationStatsQuery(client.tenantId, { ...query }));
  }
}
