import { Body, Controller, Get, Headers, HttpCode, OnModuleInit, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Page } from '../../../shared/domain/pagination';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CurrentClient, RequireScopes } from '../../auth';
import { setNextLink } from '../../../shared/http/next-link';
import { LeanReadRegistry } from '../../../shared/http/lean-reads';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { assertScopes } from '../../../shared/http/scopes';
import { CreateInvoiceCommand, CreateInvoiceInput } from '../application/create-invoice.command';
import { GetInvoiceQuery } from '../application/get-invoice.query';
import { ListInvoicesQuery } from '../application/list-invoices.query';
import { UpdateInvoiceCommand, UpdateInvoiceInput } from '../application/update-invoice.command';
import { WriteOffInvoiceCommand } from '../application/write-off-invoice.command';
import { InvoiceJson } from '../domain/invoice.snapshot';
import { InvoiceDetailView } from '../application/invoice-read-model';
import { CreateInvoiceRequest, ListInvoicesRequest, UpdateInvoiceRequest, WriteOffInvoiceRequest } from './invoice.request';
import { InvoiceDetailResponse, InvoicePageResponse } from './invoice.response';

/** If-Match (RFC 9110 §13.1.1): strong comparison, so weak tags never match; `*` matches any. */
export function parseIfMatch(header: string | undefined): number[] | '*' | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  return header
    .split(',')
    .map((tag) => /^\s*"?(\d{1,9})"?\s*$/.exec(tag))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
}

/** Customer fields that decide how much credit a customer gets: setting them is customers:write's job. */
const CREDIT_FIELDS = ['credit_limit', 'credit_hold', 'payment_terms_days'] as const;

function etag(reply: FastifyReply, invoice: { version: number }): void {
  void reply.header('ETag', `"${invoice.version}"`);
}

@ApiTags('invoices')
@ApiAuthenticated()
@Controller('invoices')
export class InvoicesController implements OnModuleInit {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
    private readonly uow: UnitOfWork,
    private readonly lean: LeanReadRegistry,
  ) {}

  /** The two hot reads are also served by the lean read path: these same methods, without Nest's router. */
  onModuleInit(): void {
    this.lean.register({ path: '/invoices/:id', method: this.get, handle: (client, request, reply) => this.get(client, (request.params as { id: string }).id, reply) });
    this.lean.register({ path: '/invoices', method: this.list, query: ListInvoicesRequest, handle: (client, request, reply, query) => this.list(client, query, request, reply) });
  }

  @Get()
  @RequireScopes('invoices:read')
  @ApiOperation({ summary: 'List invoices', description: 'Keyset-paginated on every sort (ties by id). A `Link: <...>; rel="next"` header points to the next page.' })
  @ApiResponse({ status: 200, type: InvoicePageResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad filter value, range, sort, limit or cursor' })
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListInvoicesRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<InvoiceJson>> {
    const page = await this.queries.execute<ListInvoicesQuery, Page<InvoiceJson>>(new ListInvoicesQuery(client.tenantId, { ...query }));
    setNextLink(request, reply, page);
    return page;
  }

  @Get(':id')
  @RequireScopes('invoices:read')
  @ApiOperation({ summary: 'Get an invoice with its payments', description: 'The `ETag` header holds the version for `If-Match`.' })
  @ApiParam({ name: 'id', example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: InvoiceDetailResponse, headers: { ETag: { description: 'Strong entity tag: the version, e.g. "3"', schema: { type: 'string' } } } })
  @ApiResponse({ status: 404, type: ProblemResponse, description: "not_found (also for another tenant's or a malformed id)" })
  async get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<InvoiceDetailView> {
    const invoice = await this.queries.execute<GetInvoiceQuery, InvoiceDetailView>(new GetInvoiceQuery(client.tenantId, id));
    etag(reply, invoice);
    return invoice;
  }

  @Post()
  @HttpCode(201)
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Create an invoice',
    description:
      'Created `open` (finalized) unless `status: "draft"`. Takes `customer_id`, or `customer{...}` matched by id, external_id, then email (case-insensitive), and created when none matches. Its credit fields (`credit_limit`, `credit_hold`, `payment_terms_days`) need the `customers:write` scope too. Honours Idempotency-Key.',
  })
  @ApiBody({
    type: CreateInvoiceRequest,
    examples: {
      existingCustomer: {
        summary: 'For a customer by id',
        value: {
          customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd',
          po_number: 'PO-7781',
          line_items: [{ description: 'Consulting, January', quantity: 1.5, unit_amount: 10000, discount_amount: 500, tax_rate: 8.25 }],
        },
      },
      matchOrCreateCustomer: {
        summary: 'Customer matched by external_id/email, or created',
        value: {
          customer: { external_id: 'CRM-1042', email: 'ap@acme.example', name: 'Acme Corp' },
          currency: 'usd',
          issue_date: '2026-01-05',
          due_date: '2026-02-04',
          line_items: [{ description: 'Widgets', quantity: 3, unit_amount: 1250 }],
        },
      },
      draft: { summary: 'A draft with an explicit number', value: { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', status: 'draft', number: 'ACME-2026-001', line_items: [{ description: 'Retainer', quantity: 1, unit_amount: 250000 }] } },
    },
  })
  @ApiResponse({ status: 201, type: InvoiceDetailResponse, headers: { ETag: { description: 'Strong entity tag: the version', schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (line math, currency other than the customer\'s, read-only field...)' })
  @ApiResponse({ status: 403, type: ProblemResponse, description: 'forbidden: customer.credit_limit, credit_hold or payment_terms_days sent without the customers:write scope' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'customer_id not found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict: duplicate number or customer external_id' })
  async create(
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: CreateInvoiceRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InvoiceDetailView> {
    // invoices:write may name a new customer (identity fields), not grant it credit.
    const credit = CREDIT_FIELDS.filter((f) => body.customer?.[f] !== undefined);
    if (credit.length > 0) assertScopes(client, ['customers:write'], `Setting customer.${credit.join(', customer.')}`);
    const invoice = await this.uow.run(async () => {
      const id = await this.commands.execute<string>(new CreateInvoiceCommand(client.tenantId, body as unknown as CreateInvoiceInput));
      return this.queries.execute<GetInvoiceQuery, InvoiceDetailView>(new GetInvoiceQuery(client.tenantId, id));
    });
    etag(reply, invoice);
    return invoice;
  }

  @Patch(':id')
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Update an invoice, change its status or dispute',
    description:
      'draft: any field; open/partially_paid: due_date, po_number, memo, metadata, dispute, status, line_items (new total ≥ amount_paid); uncollectible: status, memo, metadata, dispute; paid/void: memo, metadata. Other fields: 409 invalid_state. Read-only fields: 400.',
  })
  @ApiParam({ name: 'id', example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiBody({
    type: UpdateInvoiceRequest,
    examples: {
      finalize: { summary: 'Finalize a draft', value: { status: 'open' } },
      void: { summary: 'Void an open invoice with nothing applied', value: { status: 'void' } },
      writeOff: { summary: 'Mark uncollectible', value: { status: 'uncollectible' } },
      openDispute: { summary: 'Open a dispute', value: { dispute: { status: 'open', reason: 'Goods arrived damaged', amount: 5000 } } },
      resolveDispute: { summary: 'Resolve the dispute', value: { dispute: { status: 'resolved' } } },
      editLines: { summary: 'Replace the lines of an open invoice', value: { line_items: [{ description: 'Consulting, January (corrected)', quantity: 2, unit_amount: 10000 }] } },
      annotate: { summary: 'Memo and metadata (any status)', value: { memo: 'Paid by wire', metadata: { ticket: 'AR-77' } } },
    },
  })
  @ApiHeader({ name: 'If-Match', required: false, description: 'The ETag from a previous response; 412 when the invoice changed since' })
  @ApiResponse({ status: 200, type: InvoiceDetailResponse, headers: { ETag: { description: 'Strong entity tag: the new version', schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (unknown status, read-only field, bad value)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'invalid_state (transition or field not allowed in this status) or conflict (duplicate number)' })
  @ApiResponse({ status: 412, type: ProblemResponse, description: 'precondition_failed: If-Match does not match the current version' })
  async update(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Body() body: UpdateInvoiceRequest,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InvoiceDetailView> {
    return this.changeAndRead(client, id, new UpdateInvoiceCommand(client.tenantId, id, body as unknown as UpdateInvoiceInput, parseIfMatch(ifMatch)), reply);
  }

  @Post(':id/write-off')
  @HttpCode(200)
  @RequireScopes('invoices:write')
  @ApiOperation({
    summary: 'Write off part or all of the amount due',
    description:
      'Open and partially paid invoices only. Default amount: all of the amount due. When nothing is left due the invoice is `paid` if anything was paid or credited, else `uncollectible`. Posts a `write_off` ledger credit dated today and emits `invoice.written_off`. Write-offs are final. Honours Idempotency-Key.',
  })
  @ApiParam({ name: 'id', example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiBody({
    type: WriteOffInvoiceRequest,
    examples: {
      smallBalance: { summary: 'A small balance left after a payment', value: { amount: 450, reason: 'small_balance' } },
      badDebt: { summary: 'All of the amount due', value: { reason: 'bad_debt' } },
    },
  })
  @ApiResponse({ status: 200, type: InvoiceDetailResponse, description: 'The invoice, with the write-off in `write_offs`', headers: { ETag: { description: 'Strong entity tag: the new version', schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (unknown reason, amount not a positive integer)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'invalid_state (not open or partially paid, nothing due) or conflict (amount beyond the amount due)' })
  async writeOff(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Body() body: WriteOffInvoiceRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InvoiceDetailView> {
    return this.changeAndRead(client, id, new WriteOffInvoiceCommand(client.tenantId, id, { amount: body.amount, reason: body.reason }), reply);
  }

  /** Runs a command that changes the invoice and reads it back in the command's transaction, under its row lock: the response is this change, not a later one. */
  private async changeAndRead(client: AuthenticatedClient, id: string, command: object, reply: FastifyReply): Promise<InvoiceDetailView> {
    const invoice = await this.uow.run(async () => {
      await this.commands.execute(command);
      return this.queries.execute<GetInvoiceQuery, InvoiceDetailView>(new GetInvoiceQuery(client.tenantId, id));
    });
    etag(reply, invoice);
    return invoice;
  }
}
