import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../domain/event-types';

export class WebhookEndpointResponse {
  @ApiProperty({ example: 'wh_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'https://example.com/webhooks/receivables' }) url: string;
  @ApiProperty({ example: ['invoice.paid', 'payment.*'], type: [String] }) events: string[];
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: string;
  @ApiProperty({ enum: ['manual', 'gone'], nullable: true, description: 'gone: the endpoint answered 410 and was disabled' })
  disabled_reason: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'ERP sync' }) description: string | null;
  @ApiProperty({ example: '2026-01-15T09:30:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-15T09:30:00.000Z' }) updated_at: string;
}

export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Iu2qDf5Em4=',
    type: String,
    nullable: true,
    description:
      'Standard Webhooks signing secret. Shown only in this response; store it now. Null only on an idempotent replay ' +
      'after the endpoint was deleted or its secret rotated: a replay never reveals a secret the endpoint no longer has.',
  })
  secret: string | null;
}

export class RotatedSecretResponse extends WebhookEndpointWithSecretResponse {
  @ApiProperty({ type: String, nullable: true, description: 'Until then deliveries carry a second signature made with the previous secret.' })
  previous_secret_expires_at: string | null;
}

export class WebhookEndpointListResponse {
  @ApiProperty({ type: [WebhookEndpointResponse] }) data: WebhookEndpointResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'whd_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'wh_01jc9x7m3ef0ab6yr2t0n4q8zd' }) webhook_id: string;
  @ApiProperty({ example: 'evt_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'Also the webhook-id header, the same on every attempt.' })
  event_id: string;
  @ApiProperty({ enum: [...EVENT_TYPES, TEST_EVENT_TYPE], example: 'invoice.paid' }) event_type: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status: string;
  @ApiProperty({ example: 1, description: 'attempts made so far' }) attempts: number;
  @ApiProperty({ nullable: true, example: 200, type: Number }) last_response_code: number | null;
  @ApiProperty({ nullable: true, example: null, type: String, description: 'e.g. "HTTP 500", "timeout: no response within 15000 ms"' })
  last_error: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) last_attempt_at: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'when the next attempt is due; null once succeeded or failed' })
  next_attempt_at: string | null;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) data: WebhookDeliveryResponse[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) next_cursor: string | null;
}
