import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Page } from '../../../shared/domain/pagination';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { CurrentClient, RequireScopes } from '../../auth';
import { CreateWebhookEndpointCommand } from '../application/create-webhook-endpoint.command';
import { DeleteWebhookEndpointCommand } from '../application/delete-webhook-endpoint.command';
import { GetWebhookEndpointQuery } from '../application/get-webhook-endpoint.query';
import { ListWebhookDeliveriesQuery } from '../application/list-webhook-deliveries.query';
import { ListWebhookEndpointsQuery } from '../application/list-webhook-endpoints.query';
import { RotateWebhookSecretCommand } from '../application/rotate-webhook-secret.command';
import { SendTestEventCommand } from '../application/send-test-event.command';
import { UpdateWebhookEndpointCommand } from '../application/update-webhook-endpoint.command';
import { DeliveryView, EndpointView, EndpointWithSecretView, RotatedSecretView } from '../application/webhook.views';
import {
  CreateWebhookEndpointRequest,
  ListWebhookDeliveriesRequest,
  ListWebhookEndpointsRequest,
  RotateWebhookSecretRequest,
  UpdateWebhookEndpointRequest,
} from './webhook-endpoint.request';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { setNextLink } from '../../../shared/http/next-link';
import {
  RotatedSecretResponse,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './webhook-endpoint.response';

import { MAX_ENDPOINTS_PER_TENANT } from '../domain/webhook-endpoint.aggregate';
import { ReplayedSecret } from '../../../shared/infrastructure/idempotency/replayed-secret.decorator';

/** An idempotent replay shows the endpoint's secret only while the endpoint still has it (docs/adr/0031). */
const LIVE_SECRET = ReplayedSecret({ field: 'secret', liveSecretSql: 'SELECT secret FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2' });
const REPLAY_NOTE =
  ' An idempotent replay (same Idempotency-Key) shows the secret while the endpoint still has it; ' +
  'once the endpoint is deleted or its secret rotated, the replay answers `secret: null`.';

const ID_PARAM = { name: 'id', example: 'wh_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'webhook endpoint id' };
const E404 = { status: 404, type: ProblemResponse, description: 'no such endpoint in this tenant' };
const E400 = { status: 400, type: ProblemResponse, description: 'validation_failed (unknown event type, refused URL, unknown field)' };

/** Sets the `Link: rel="next"` header of a page (contract §5). */
function withNextLink<T>(page: Page<T>, request: FastifyRequest, reply: FastifyReply): Page<T> {
  setNextLink(request, reply, page);
  return page;
}

@ApiTags('webhooks')
@ApiAuthenticated()
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @LIVE_SECRET
  @RequireScopes('webhooks:write')
  @ApiOperation({
    summary: 'Subscribe an endpoint to events',
    description:
      'The response carries the signing secret (Standard Webhooks, `whsec_…`), shown only here. Deliveries are POSTs with ' +
      'the headers webhook-id (the event id), webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256>`) and the body ' +
      '`{"id","type","created_at","data":{"object","previous_attributes"?}}`.' +
      REPLAY_NOTE,
  })
  @ApiResponse({ status: 201, type: WebhookEndpointWithSecretResponse })
  @ApiResponse(E400)
  @ApiResponse({ status: 409, type: ProblemResponse, description: `conflict: the tenant already has ${MAX_ENDPOINTS_PER_TENANT} endpoints (the limit)` })
  create(@CurrentClient() client: AuthenticatedClient, @Body() body: CreateWebhookEndpointRequest): Promise<EndpointWithSecretView> {
    return this.commands.execute(new CreateWebhookEndpointCommand(client.tenantId, body.url, body.events, body.description ?? null));
  }

  @Get()
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: 'List endpoints (without secrets)', description: 'Newest first; keyset pagination with `limit` and `cursor`.' })
  @ApiResponse({ status: 200, type: WebhookEndpointListResponse })
  @ApiResponse(E400)
  async list(
    @CurrentClient() client: AuthenticatedClient,
    @Query() query: ListWebhookEndpointsRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<EndpointView>> {
    return withNextLink(await this.queries.execute(new ListWebhookEndpointsQuery(client.tenantId, query)), request, reply);
  }

  @Get(':id')
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: 'Get an endpoint (without its secret)' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, type: WebhookEndpointResponse })
  @ApiResponse(E404)
  get(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<EndpointView> {
    return this.queries.execute(new GetWebhookEndpointQuery(client.tenantId, id));
  }

  @Patch(':id')
  @RequireScopes('webhooks:write')
  @ApiOperation({ summary: 'Change url, events, description or status', description: 'A new url is checked like at registration.' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, type: WebhookEndpointResponse })
  @ApiResponse(E400)
  @ApiResponse(E404)
  update(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string, @Body() body: UpdateWebhookEndpointRequest): Promise<EndpointView> {
    return this.commands.execute(new UpdateWebhookEndpointCommand(client.tenantId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireScopes('webhooks:write')
  @ApiOperation({ summary: 'Delete an endpoint and its delivery history' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 204, description: 'deleted' })
  @ApiResponse(E404)
  async remove(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<void> {
    await this.commands.execute(new DeleteWebhookEndpointCommand(client.tenantId, id));
  }

  @Post(':id/rotate-secret')
  @LIVE_SECRET
  @HttpCode(200)
  @RequireScopes('webhooks:write')
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Returns the new secret (shown only here). For `overlap_seconds` (default 24 h) every delivery carries two signatures, ' +
      'one per secret, so receivers can switch to the new secret without rejecting anything in between.' +
      REPLAY_NOTE,
  })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, type: RotatedSecretResponse })
  @ApiResponse(E400)
  @ApiResponse(E404)
  rotate(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Body() body: RotateWebhookSecretRequest,
  ): Promise<RotatedSecretView> {
    return this.commands.execute(new RotateWebhookSecretCommand(client.tenantId, id, body.overlap_seconds));
  }

  @Post(':id/test')
  @HttpCode(202)
  @RequireScopes('webhooks:write')
  @ApiOperation({
    summary: 'Send a webhook.test event to this endpoint',
    description:
      'Queues a `webhook.test` event (data.object: this endpoint, without secret) for this endpoint only, whatever it ' +
      'subscribed to; it is signed, retried and listed under deliveries like any event. 409 when the endpoint is disabled.',
  })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 202, type: WebhookDeliveryResponse, description: 'the queued delivery' })
  @ApiResponse(E404)
  @ApiResponse({ status: 409, type: ProblemResponse, description: 'invalid_state: the endpoint is disabled' })
  sendTest(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<DeliveryView> {
    return this.commands.execute(new SendTestEventCommand(client.tenantId, id));
  }

  @Get(':id/deliveries')
  @RequireScopes('webhooks:read')
  @ApiOperation({ summary: "List an endpoint's deliveries", description: 'Newest first; filter by status (comma list), event_type or event_id.' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, type: WebhookDeliveryListResponse })
  @ApiResponse(E400)
  @ApiResponse(E404)
  async deliveries(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Query() query: ListWebhookDeliveriesRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Page<DeliveryView>> {
    return withNextLink(await this.queries.execute(new ListWebhookDeliveriesQuery(client.tenantId, id, query)), request, reply);
  }
}
