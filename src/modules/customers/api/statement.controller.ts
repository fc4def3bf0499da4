import { Readable } from 'node:stream';
import { Controller, Get, Headers, OnModuleInit, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { LeanReadRegistry } from '../../../shared/http/lean-reads';
import { CurrentClient, RequireScopes } from '../../auth';
import { GetCustomerStatementQuery } from '../application/get-customer-statement.query';
import { statementCsvChunks } from '../infrastructure/statement-csv.renderer';
import { StatementView, statementJsonChunks, statementView } from '../infrastructure/statement-json.renderer';
import { PDF_MAX_LINES, StatementPdfRenderer } from '../infrastructure/statement-pdf.renderer';
import { StatementReading } from '../application/statement-read-model';
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

  /**
   * JSON statements are also served by the lean read path: this same method, without Nest's router.
   * PDF and CSV (documents, not the hot path) go through Nest, whose reply handles a streamed body cleanly.
   */
  onModuleInit(): void {
    this.lean.register({
      path: '/customers/:id/statement',
      method: this.statement,
      query: StatementRequest,
      accepts: (request) => statementFormat(request.headers.accept) === 'json',
      handle: (client, request, reply, query) => this.statement(client, (request.params as { id: string }).id, query, request.headers.accept, reply),
    });
  }

  @Get(':id/statement')
  @RequireScopes('customers:read')
  @ApiOperation({
    summary: 'Get a customer statement (JSON, PDF or CSV)',
    description:
      'Balance-forward statement from the receivables ledger: opening balance, dated lines with a running balance, totals, closing balance ' +
      '(= the customer\'s balance as of `to`), and what was owed as of `to`: aging of the invoices issued by then, with their amounts as of `to`, ' +
      'and the unapplied credit (aging total − unapplied_credit = closing_balance). `Accept: application/pdf` returns a printable PDF ' +
      `(at most ${PDF_MAX_LINES.toLocaleString('en-US')} lines: a longer period is a 400 that says how to narrow it), \`Accept: text/csv\` ` +
      'the lines as CSV with an opening-balance row and amounts in minor and major units. JSON and CSV have no line limit: long statements are streamed.',
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
      'text/csv': {
        schema: {
          type: 'string',
          example:
            'date,type,reference,description,debit,credit,balance,currency,debit_major,credit_major,balance_major\r\n' +
            '2026-01-01,opening_balance,,Opening balance,,,25000,usd,,,250.00\r\n' +
            '2026-01-05,invoice,INV-000123,Invoice INV-000123,12550,0,37550,usd,125.50,0.00,375.50\r\n',
        },
      },
    },
  })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad date, from after to, or a PDF of more lines than it holds (the detail says how to narrow the period)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found (also for another tenant\'s or a malformed id)' })
  async statement(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Query() query: StatementRequest,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StatementView | NodeJS.ReadableStream> {
    const format = statementFormat(accept);
    const reading = await this.queries.execute<GetCustomerStatementQuery, StatementReading>(
      new GetCustomerStatementQuery(client.tenantId, id, query.from, query.to, format === 'pdf' ? { lines: PDF_MAX_LINES, format: 'PDF' } : undefined),
    );
    const { summary } = reading;
    void reply.header('Vary', 'Accept');
    if (format === 'json' && reading.inline) return statementView(summary, reading.inline);
    if (format !== 'json') {
      void reply.header('Content-Disposition', `attachment; filename="statement-${summary.customer.id}-${summary.from}-${summary.to}.${format}"`);
    }
    void reply.header('Content-Type', format === 'pdf' ? 'application/pdf' : format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    // Written as the lines are read; however the response ends (done, failed, client gone), the reading is closed.
    const stream = format === 'pdf' ? this.pdf.render(reading) : Readable.from(format === 'csv' ? statementCsvChunks(reading) : statementJsonChunks(reading));
    stream.on('close', () => void reading.close());
    return stream;
  }
}
