import { Body, Controller, Get, HttpCode, OnModuleInit, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { Page } from '../../../shared/domain/pagination';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { CurrentClient, RequireScopes } from '../../auth';
import { CreateCustomerCommand } from '../application/create-customer.command';
import { GetCustomerQuery } from '../application/get-customer.query';
import { ListCustomersQuery } from '../application/list-customers.query';
import { UpdateCustomerCommand } from '../application/update-customer.command';
import { CustomerDetailView, CustomerView } from '../application/customer-read-model';
import { CreateCustomerRequest, GetCustomerRequest, ListCustomersRequest, UpdateCustomerRequest } from './customer.request';
import { CustomerDetailResponse, CustomerPageResponse } from './customer.response';
import { setNextLink } from '../../../shared/http/next-link';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { LeanReadRegistry } from '../../../shared/http/lean-reads';

@ApiTags('customers')
@ApiAuthenticated()
@Controller('customers')
export class CustomersController implements OnModuleInit {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
    private readonly uow: UnitOfWork,
    private readonly lean: LeanReadRegistry,
  ) {}

  /** The customer detail is also served by the lean read path: this same method, without Nest's router. */
  onModuleInit(): void {
    this.lean.register({ path: '/customers/:id', method: this.get, query: GetCustomerRequest, handle: (client, request, _reply, query) => this.get(client, (request.params as { id: string }).id, query) });
  }

  @Post()
  @HttpCode(201)
  @RequireScopes('customers:write')
  @ApiOperation({ summary: 'Create a customer', description: 'Honours Idempotency-Key. `external_id` is unique per tenant.' })
  @ApiBody({
    type: CreateCustomerRequest,
    examples: {
      minimal: { summary: 'Name and currency', value: { name: 'Acme Corp', currency: 'usd' } },
      full: {
        summary: 'With terms and credit',
        value: {
          name: 'Acme Corp',
          email: 'ap@acme.example',
          external_id: 'CRM-1042',
          phone: '+1 555 0100',
          billing_address: { line1: '1 Main Street', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
          currency: 'usd',
          payment_terms_days: 45,
          credit_limit: 500000,
          metadata: { segment: 'enterprise' },
        },
      },
    },
  })
  @ApiResponse({ status: 201, type: CustomerDetailResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict: external_id already used' })
  async create(@CurrentClient() client: AuthenticatedClient, @Body() body: CreateCustomerRequest): Promise<CustomerDetailView> {
    return this.uow.run(async () => {
      const id = await this.commands.execute<string>(new CreateCustomerCommand(client.tenantId, body));
      return this.queries.execute(new GetCustomerQuery(client.tenantId, id));
    });
  }

  @Get()
  @RequireScopes('customers:read')
  @ApiOperation({
    summary: 'List customers',
    description: 'Keyset-paginated; balance and overdue figures as of today, aging as of `as_of`. A `Link: <...>; rel="next"` header points to the next page.',
  })
  @ApiResponse({ status: 200, type: CustomerPageResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad filter, sort, limit or cursor' })
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListCustomersRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<CustomerView>> {
    const page = await this.queries.execute<ListCustomersQuery, Page<CustomerView>>(new ListCustomersQuery(client.tenantId, { ...query }));
    setNextLink(request, reply, page);
    return page;
  }

  @Get(':id')
  @RequireScopes('customers:read')
  @ApiOperation({ summary: 'Get a customer with balance, credit, aging and AR summary' })
  @ApiParam({ name: 'id', example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiResponse({ status: 200, type: CustomerDetailResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'bad as_of' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found (also for another tenant\'s or a malformed id)' })
  get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Query() query: GetCustomerRequest): Promise<CustomerDetailView> {
    return this.queries.execute(new GetCustomerQuery(client.tenantId, id, query.as_of));
  }

  @Patch(':id')
  @RequireScopes('customers:write')
  @ApiOperation({ summary: 'Update a customer', description: 'Any subset of fields; null clears a nullable one.' })
  @ApiParam({ name: 'id', example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @ApiBody({
    type: UpdateCustomerRequest,
    examples: {
      creditHold: { summary: 'Put on credit hold', value: { credit_hold: true } },
      limit: { summary: 'Change the credit limit and terms', value: { credit_limit: 750000, payment_terms_days: 30 } },
      clear: { summary: 'Clear nullable fields', value: { phone: null, credit_limit: null } },
    },
  })
  @ApiResponse({ status: 200, type: CustomerDetailResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed' })
  @ApiResponse({ status: 404, type: ProblemResponse, description: 'not_found' })
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'conflict (external_id) or invalid_state (currency of a customer with activity)' })
  async update(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: UpdateCustomerRequest): Promise<CustomerDetailView> {
    // Read back in the command's transaction: the response shows this change, not a later one.
    return this.uow.run(async () => {
      await this.commands.execute(new UpdateCustomerCommand(client.tenantId, id, body));
      return this.queries.execute(new GetCustomerQuery(client.tenantId, id));
    });
  }
}
