import { Controller, Get, Headers, OnModuleInit, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { LeanReadRegistry } from '../../../shared/http/lean-reads';
import { CurrentClient, RequireScopes } from '../../auth';
import { GetCustomerStatementQuery } from '../application/get-customer-statement.query';
import { renderStatementCsv } from '../infrastructure/statement-csv.renderer';
import { StatementPdfRenderer } from '../infrastructure/statement-pdf.renderer';
import { StatementDocument, StatementView } from '../infrastructure/statement-read-model';
import { StatementRequest } from './statement.request';
import { StatementResponse } from './statement.response';

type Format = 'json' | 'pdf' | 'csv';

/** Picks the representation from Accept (q-values honoured); JSON unless PDF or CSV is preferred. */
export function statementFormat(accept: string | undefined): Format {
  if (!accept) return 'json';
  const ranked = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { type: type.trim(), q: q ? Number(q[1]) : 1, i };
    })
    .filter((m) => m.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { type } of ranked) {
    if (type === 'application/pdf') return 'pdf';
    if (type === 'text/csv') return 'csv';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'json';
  }
  return 'json';
}

@ApiTags('customers')
@ApiAuthenticated()
@ApiExtraModels(StatementResponse)
@Controller('customers')
export class StatementController implements OnModuleInit {
  constructor(
    private readonly queries: QueryBus,
    private readonly pdf: StatementPdfRenderer,
    private readonly lean: LeanReadRegistry,
  ) {}

  /** Statements are also served by the lean read path: this same method, without Nest's router. */
  onModuleInit(): void {
    this.lean.register({
      path: '/customers/:id/statement',
      method: this.statement,
      query: StatementRequest,
      handle: (client, request, reply, query) => this.statement(client, (request.params as { id: string }).id, query, request.headers.accept, reply),
    });
  }

  @Get(':id/statement')
  @RequireScopes('customers:read')
  @ApiOperation({
    summary: 'Get a customer statement (JSON, PDF or CSV)',
    description:
      'Balance-forward statement from the receivables ledger: opening balance, dated lines with a running balance, totals, closing balance ' +
      '(= the customer\'s balance as of `to`) and aging. `Accept: application/pdf` returns a printable PDF, `Accept: text/csv` the lines as CSV.',
  })
  @ApiParam({ name: 'id', example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiHeader({ name: 'Accept', required: false, description: 'application/json (default), application/pdf or text/csv' })
  @ApiProduces('application/json', 'application/pdf', 'text/csv')
  @ApiResponse({
    status: 200,
    description: 'The statement',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(StatementResponse) } },
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
      'text/csv': { schema: { type: 'string', example: 'date,type,reference,description,debit,credit,balance\r\n2026-01-05,invoice,INV-000123,Invoice INV-000123,12550,0,37550\r\n' } },
    },
  })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad date, or from after to' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found (also for another tenant\'s or a malformed id)' })
  async statement(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Query() query: StatementRequest,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StatementView | Buffer | string> {
    const format = statementFormat(accept);
    const { tenant, ...statement } = await this.queries.execute<GetCustomerStatementQuery, StatementDocument>(
      new GetCustomerStatementQuery(client.tenantId, id, query.from, query.to),
    );
    void reply.header('Vary', 'Accept');
    if (format === 'json') return statement;
    const filename = `statement-${statement.customer.id}-${statement.from}-${statement.to}.${format}`;
    void reply.header('Content-Disposition', `attachment; filename="${filename}"`);
    if (format === 'csv') {
      void reply.header('Content-Type', 'text/csv; charset=utf-8');
      return renderStatementCsv(statement);
    }
    void reply.header('Content-Type', 'application/pdf');
    return this.pdf.render({ tenant, ...statement });
  }
}
