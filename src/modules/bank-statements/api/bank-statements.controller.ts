import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../../shared/domain/domain-error';
import { Page } from '../../../shared/domain/pagination';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { setNextLink } from '../../../shared/http/next-link';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { StreamedBody } from '../../../shared/http/streamed-body';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CurrentClient, RequireScopes } from '../../auth';
import { GetBankStatementQuery, ListBankStatementsQuery } from '../application/bank-statement.queries';
import { ImportBankStatementCommand } from '../application/import-bank-statement.command';
import { BANK_FILE_FORMATS, BankFileRejectedError, isBankFileFormat } from '../domain/bank-entry';
import { BankStatementJson } from '../domain/bank-statement';
import { BankStatementWorker } from '../infrastructure/bank-statement.worker';
import { ImportBankStatementRequest, ListBankStatementsRequest } from './bank-statement.request';
import { BankStatementPageResponse, BankStatementResponse } from './bank-statement.response';

@ApiTags('bank-statements')
@ApiAuthenticated()
@Controller('bank-statements')
export class BankStatementsController {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
    private readonly uow: UnitOfWork,
    private readonly worker: BankStatementWorker,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireScopes('payments:write')
  @ApiOperation({
    summary: 'Import a bank file (camt.053, camt.054, BAI2, MT940, CSV)',
    description:
      'The body is the file as the bank sent it (up to 50 MB, read as a stream). It is read and its credits staged before the 202; ' +
      'each credit then becomes a payment, matched exactly as POST /payments would match it, in the background: follow ' +
      '`entries_processed` on GET /bank-statements/:id, or wait for `bank_statement.completed`. Re-posting a file creates nothing twice ' +
      '(`payments_existing`). A file that is not well formed or not of the format named is a 422 and imports nothing.',
  })
  @ApiConsumes('application/xml', 'text/plain', 'text/csv')
  @ApiBody({ description: 'The bank file', schema: { type: 'string', format: 'binary' } })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Up to 255 characters; the body is compared by its SHA-256.' })
  @ApiResponse({ status: 202, type: BankStatementResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed: format missing or unknown' })
  @ApiResponse({ status: 413, type: ProblemResponse, description: 'payload_too_large: more than 50 MB' })
  @ApiResponse({ status: 415, type: ProblemResponse, description: 'unsupported_media_type: not application/xml, text/plain or text/csv' })
  @ApiResponse({ status: 422, type: ProblemResponse, description: 'invalid_bank_file (nothing imported); idempotency_key_reused' })
  async import(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ImportBankStatementRequest,
    @Req() request: FastifyRequest,
  ): Promise<BankStatementJson> {
    if (!isBankFileFormat(query.format)) {
      throw ValidationError.field('format', `format must be one of ${BANK_FILE_FORMATS.join(', ')}`);
    }
    const body = request.body;
    if (!(body instanceof StreamedBody)) throw new BankFileRejectedError('the body is empty: send the bank file');
    const imported = await this.commands.execute<BankStatementJson>(new ImportBankStatementCommand(client.tenantId, query.format, body));
    // Wake the worker once the staged entries are visible to it (after this request's commit).
    this.uow.afterCommit(() => this.worker.kick());
    return imported;
  }

  @Get()
  @RequireScopes('payments:read')
  @ApiOperation({ summary: 'List bank-file imports', description: 'Newest first by default; keyset-paginated.' })
  @ApiResponse({ status: 200, type: BankStatementPageResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad filter, sort, limit or cursor' })
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListBankStatementsRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<BankStatementJson>> {
    const page = await this.queries.execute<ListBankStatementsQuery, Page<BankStatementJson>>(new ListBankStatementsQuery(client.tenantId, { ...query }));
    setNextLink(request, reply, page);
    return page;
  }

  @Get(':id')
  @RequireScopes('payments:read')
  @ApiOperation({ summary: 'Get a bank-file import: its progress and counts' })
  @ApiParam({ name: 'id', example: 'bst_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: BankStatementResponse })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found (also for another tenant\'s or a malformed id)' })
  get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<BankStatementJson> {
    return this.queries.execute(new GetBankStatementQuery(client.tenantId, id));
  }
}
