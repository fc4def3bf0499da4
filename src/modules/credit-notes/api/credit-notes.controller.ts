import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Page } from '../../../shared/domain/pagination';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { setNextLink } from '../../../shared/http/next-link';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CurrentClient, RequireScopes } from '../../auth';
import { ApplyCreditNoteCommand, ApplyCreditNoteResult } from '../application/apply-credit-note.command';
import { CreateCreditNoteCommand, CreateCreditNoteInput } from '../application/create-credit-note.command';
import { GetCreditNoteQuery } from '../application/get-credit-note.query';
import { ListCreditNotesQuery } from '../application/list-credit-notes.query';
import { RefundCreditNoteCommand } from '../application/refund-credit-note.command';
import { VoidCreditNoteCommand } from '../application/void-credit-note.command';
import { RefundJson } from '../../../shared/domain/refund';
import { RefundRequest, RefundResponse } from '../../../shared/http/refund.dto';
import { CreditNoteJson } from '../domain/credit-note.snapshot';
import { ApplyCreditNoteRequest, CreateCreditNoteRequest, ListCreditNotesRequest } from './credit-note.request';
import { ApplyCreditNoteResponse, CreditNotePageResponse, CreditNoteResponse } from './credit-note.response';

/**
 * Credit notes (contract §15). Scopes: `invoices:read` to read them, `invoices:write` to create,
 * apply, void and refund them (a credit note corrects invoices). Every POST honours Idempotency-Key.
 */
@ApiTags('credit notes')
@ApiAuthenticated()
@Controller('credit-notes')
export class CreditNotesController {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
    private readonly uow: UnitOfWork,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Create a credit note',
    description:
      'With `line_items` (the amount is their total) or an `amount`. With `invoice_id` it is applied to that invoice at once, up to its amount due; the rest stays the customer\'s credit (all of it for a paid or uncollectible invoice). Posts a `credit_note` ledger credit dated today. Honours Idempotency-Key.',
  })
  @ApiBody({
    type: CreateCreditNoteRequest,
    examples: {
      forInvoice: { summary: 'For an invoice, by amount', value: { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', invoice_id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', reason: 'product_unsatisfactory', amount: 2500 } },
      lines: { summary: 'Customer credit, with lines', value: { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', reason: 'discount', line_items: [{ description: 'Loyalty discount', quantity: 1, unit_amount: 5000 }] } },
    },
  })
  @ApiResponse({ status: 201, type: CreditNoteResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (neither or both of line_items and amount, unknown reason, currency other than the customer\'s)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'customer or invoice not found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict: the invoice belongs to another customer; invalid_state: the invoice is a draft or void' })
  create(@CurrentClient() client: AuthenticatedClient, @Body() body: CreateCreditNoteRequest): Promise<CreditNoteJson> {
    return this.uow.run(async () => {
      const id = await this.commands.execute<string>(new CreateCreditNoteCommand(client.tenantId, body as unknown as CreateCreditNoteInput));
      return this.queries.execute<GetCreditNoteQuery, CreditNoteJson>(new GetCreditNoteQuery(client.tenantId, id));
    });
  }

  @Get()
  @RequireScopes('invoices:read')
  @ApiOperation({ summary: 'List credit notes', description: 'Keyset-paginated (ties by id); a `Link: <...>; rel="next"` header points to the next page.' })
  @ApiResponse({ status: 200, type: CreditNotePageResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad status, sort, limit or cursor' })
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListCreditNotesRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<CreditNoteJson>> {
    const page = await this.queries.execute<ListCreditNotesQuery, Page<CreditNoteJson>>(new ListCreditNotesQuery(client.tenantId, { ...query }));
    setNextLink(request, reply, page);
    return page;
  }

  @Get(':id')
  @RequireScopes('invoices:read')
  @ApiOperation({ summary: 'Get a credit note with its applications' })
  @ApiParam({ name: 'id', example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: CreditNoteResponse })
  @ApiResponse({ status: 404, type: ProblemResponse, description: "not_found (also for another tenant's or a malformed id)" })
  get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<CreditNoteJson> {
    return this.queries.execute(new GetCreditNoteQuery(client.tenantId, id));
  }

  @Post(':id/apply')
  @HttpCode(200)
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Apply a credit note to invoices (all or nothing)',
    description: "Rules and errors as a manual payment match. Amount defaults to the lesser of the invoice's amount due and what the credit note has left. Honours Idempotency-Key.",
  })
  @ApiParam({ name: 'id', example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: ApplyCreditNoteResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (no applications, an invoice listed twice, a bad amount)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'credit note or invoice not found' })
  @ApiResponse({
    status: 409,
    type: ProblemResponse,
    description: 'conflict: another customer or currency, more than the amount due or the remaining credit; invalid_state: invoice not open/partially_paid, credit note void',
  })
  apply(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: ApplyCreditNoteRequest): Promise<ApplyCreditNoteResult> {
    return this.commands.execute<ApplyCreditNoteResult>(new ApplyCreditNoteCommand(client.tenantId, id, body.applications));
  }

  @Post(':id/refunds')
  @HttpCode(201)
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Refund part of the remaining credit',
    description: 'Only from the remaining amount (409 beyond it). Posts a `refund` ledger debit dated today and emits `credit_note.refunded`; the credit note lists it in `refunds`. Honours Idempotency-Key.',
  })
  @ApiParam({ name: 'id', example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 201, type: RefundResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (amount not a positive integer, reason too long)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict: more than remains; invalid_state: the credit note is void' })
  refund(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: RefundRequest): Promise<RefundJson> {
    return this.commands.execute<RefundJson>(new RefundCreditNoteCommand(client.tenantId, id, body.amount, body.reason));
  }

  @Post(':id/void')
  @HttpCode(200)
  @RequireScopes('invoices:write')
  @ApiOperation({ summary: 'Void a credit note', description: 'Only with nothing applied or refunded. Posts a `void` ledger debit of its amount dated today. Honours Idempotency-Key.' })
  @ApiParam({ name: 'id', example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: CreditNoteResponse })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'invalid_state: already void, or something applied or refunded' })
  voidNote(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<CreditNoteJson> {
    return this.uow.run(async () => {
      await this.commands.execute(new VoidCreditNoteCommand(client.tenantId, id));
      return this.queries.execute<GetCreditNoteQuery, CreditNoteJson>(new GetCreditNoteQuery(client.tenantId, id));
    });
  }
}
