import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Page } from '../../../shared/domain/pagination';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { CurrentClient, RequireScopes } from '../../auth';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { setNextLink } from '../../../shared/http/next-link';
import { GetPaymentQuery } from '../application/get-payment.query';
import { ListPaymentsQuery } from '../application/list-payments.query';
import { MatchPaymentCommand, MatchPaymentResult } from '../application/match-payment.command';
import { RecordPaymentCommand } from '../application/record-payment.command';
import { RefundPaymentCommand } from '../application/refund-payment.command';
import { ReverseApplicationCommand } from '../application/reverse-application.command';
import { RefundRequest, RefundResponse } from '../../../shared/http/refund.dto';
import { RefundJson } from '../../../shared/domain/refund';
import { PaymentJson, PaymentSnapshot } from '../domain/payment.snapshot';
import { PaymentReadModel } from '../application/payment-read-model';
import { ListPaymentsRequest, MatchPaymentRequest, RecordPaymentRequest } from './payment.request';
import { MatchPaymentResponse, PaymentPageResponse, PaymentResponse } from './payment.response';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description: 'Up to 255 characters; a retry with the same key and body returns the first response with `Idempotent-Replayed: true` (kept 24 h).',
};

@ApiTags('payments')
@ApiAuthenticated()
@Controller('payments')
export class PaymentsController {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
    private readonly payments: PaymentReadModel,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes('payments:write')
  @ApiOperation({
    summary: 'Record a payment (and apply it automatically)',
    description:
      'Automatic matching runs in the same transaction, so the response already shows the applications. Rules, first that applies wins: ' +
      'remittance, reference, exact_amount, combination (≤ 5 of the 50 oldest), oldest_first (only with auto_match "oldest_first"). ' +
      'Ambiguity applies nothing: match.status is needs_review with suggestions. What no invoice takes stays unapplied (credit).',
  })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: PaymentResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (also a currency other than the customer\'s)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'customer_id not found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'idempotency_key_in_use' })
  @ApiResponse({ status: 422, type: ProblemResponse, description: 'idempotency_key_reused' })
  async record(@CurrentClient() client: AuthenticatedClient, @Body() body: RecordPaymentRequest): Promise<PaymentJson> {
    // The 201 is the payment as this transaction wrote it (matched), not a read of it after commit.
    const payment = await this.commands.execute<PaymentSnapshot>(new RecordPaymentCommand(client.tenantId, body));
    return this.payments.present(payment);
  }

  @Get()
  @RequireScopes('payments:read')
  @ApiOperation({ summary: 'List payments', description: 'Keyset-paginated; a `Link: <...>; rel="next"` header points to the next page.' })
  @ApiResponse({ status: 200, type: PaymentPageResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad filter, sort, limit or cursor' })
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListPaymentsRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<PaymentJson>> {
    const page = await this.queries.execute<ListPaymentsQuery, Page<PaymentJson>>(new ListPaymentsQuery(client.tenantId, { ...query }));
    setNextLink(request, reply, page);
    return page;
  }

  @Get(':id')
  @RequireScopes('payments:read')
  @ApiOperation({ summary: 'Get a payment with its applications and match result' })
  @ApiParam({ name: 'id', example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: PaymentResponse })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found (also for another tenant\'s or a malformed id)' })
  get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<PaymentJson> {
    return this.queries.execute(new GetPaymentQuery(client.tenantId, id));
  }

  @Post(':id/match')
  @HttpCode(200)
  @RequireScopes('payments:write')
  @ApiOperation({
    summary: 'Apply a payment to invoices by hand (all or nothing)',
    description: 'Amount defaults to the lesser of the invoice\'s amount due and what is left of the payment.',
  })
  @ApiParam({ name: 'id', example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 200, type: MatchPaymentResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'payment or invoice not found' })
  @ApiResponse({
    status: 409,
    type: ProblemResponse,
    description: 'conflict: another customer or currency, more than the amount due or the unapplied amount; invalid_state: invoice not open/partially_paid',
  })
  async match(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: MatchPaymentRequest): Promise<MatchPaymentResult> {
    return this.commands.execute<MatchPaymentResult>(new MatchPaymentCommand(client.tenantId, id, body.applications));
  }

  @Post(':id/refunds')
  @HttpCode(201)
  @RequireScopes('payments:write')
  @ApiOperation({
    summary: 'Refund part of what is unapplied',
    description:
      'Only from the unapplied amount (409 beyond it); a payment without a customer cannot be refunded until it is matched to one (409). Posts a `refund` ledger debit dated today and emits `payment.refunded`; the payment lists it in `refunds`.',
  })
  @ApiParam({ name: 'id', example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiResponse({ status: 201, type: RefundResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (amount not a positive integer, reason too long)' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict: more than is unapplied; invalid_state: no customer yet' })
  refund(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: RefundRequest): Promise<RefundJson> {
    return this.commands.execute<RefundJson>(new RefundPaymentCommand(client.tenantId, id, body.amount, body.reason));
  }

  @Delete(':id/applications/:application_id')
  @HttpCode(200)
  @RequireScopes('payments:write')
  @ApiOperation({ summary: 'Reverse one application', description: 'The invoice owes the amount again (paid/partially_paid → partially_paid/open).' })
  @ApiParam({ name: 'id', example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiParam({ name: 'application_id', example: 'app_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: PaymentResponse })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'payment or application not found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'invalid_state: already reversed' })
  async reverse(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Param('application_id') applicationId: string): Promise<PaymentJson> {
    await this.commands.execute(new ReverseApplicationCommand(client.tenantId, id, applicationId));
    return this.queries.execute(new GetPaymentQuery(client.tenantId, id));
  }
}
