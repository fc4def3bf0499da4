import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MAX_LIMIT } from '../../../shared/domain/pagination';
import { EVENT_TYPES } from '../domain/event-types';
import { MAX_SECRET_OVERLAP_SECONDS } from '../domain/webhook-endpoint.aggregate';

const EVENTS_DESCRIPTION =
  `Event types to receive: a type (${EVENT_TYPES.join(', ')}), a family wildcard (\`invoice.*\`, \`payment.*\`, ` +
  '`dispute.*`) or `*` for all. Unknown entries are a 400.';

export class CreateWebhookEndpointRequest {
  @ApiProperty({ example: 'https://example.com/webhooks/receivables', description: 'https; must not resolve to a private, loopback or link-local address.' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ example: ['invoice.paid', 'payment.*'], description: EVENTS_DESCRIPTION, type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events: string[];

  @ApiPropertyOptional({ type: String, example: 'ERP sync', nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

export class UpdateWebhookEndpointRequest {
  @ApiPropertyOptional({ example: 'https://example.com/webhooks/v2' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ example: ['*'], description: EVENTS_DESCRIPTION, type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'null clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiPropertyOptional({ enum: ['enabled', 'disabled'], description: 'Disabling fails the pending deliveries; re-enabling does not resend them.' })
  @IsOptional()
  @IsIn(['enabled', 'disabled'])
  status?: 'enabled' | 'disabled';
}

export class RotateWebhookSecretRequest {
  @ApiPropertyOptional({
    example: 86400,
    default: 86400,
    minimum: 0,
    maximum: MAX_SECRET_OVERLAP_SECONDS,
    description: 'How long the old secret keeps signing next to the new one (a second v1 signature). 0 retires it at once.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_SECRET_OVERLAP_SECONDS)
  overlap_seconds?: number;
}

/** Both webhook lists page newest first on created_at (contract §5). */
class CreatedAtPageRequest {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIMIT, default: 25 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ enum: ['created_at', '-created_at'], default: '-created_at' })
  @IsOptional()
  @IsString()
  sort?: string;
}

export class ListWebhookEndpointsRequest extends CreatedAtPageRequest {
  @ApiPropertyOptional({ enum: ['enabled', 'disabled'] })
  @IsOptional()
  @IsString()
  status?: string;
}

export class ListWebhookDeliveriesRequest extends CreatedAtPageRequest {
  @ApiPropertyOptional({ description: 'comma list of pending, succeeded, failed', example: 'pending,failed' })
  @IsOptional()
  @IsString()
  status?: string;

  @ApiPropertyOptional({ example: 'invoice.paid' })
  @IsOptional()
  @IsString()
  event_type?: string;

  @ApiPropertyOptional({ example: 'evt_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @IsOptional()
  @IsString()
  @Matches(/^evt_[0-9a-z]{26}$/)
  event_id?: string;
}
