import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MAX_AMOUNT } from '../../../shared/domain/money';
import { IsMetadata } from '../../../shared/http/metadata.validator';
import { IsAmount } from '../../../shared/http/request-bounds';

export class BillingAddressRequest {
  @ApiPropertyOptional({ type: String, example: '1 Main Street', nullable: true }) @IsOptional() @IsString() line1?: string | null;
  @ApiPropertyOptional({ type: String, example: 'Suite 200', nullable: true }) @IsOptional() @IsString() line2?: string | null;
  @ApiPropertyOptional({ type: String, example: 'Springfield', nullable: true }) @IsOptional() @IsString() city?: string | null;
  @ApiPropertyOptional({ type: String, example: 'IL', nullable: true }) @IsOptional() @IsString() region?: string | null;
  @ApiPropertyOptional({ type: String, example: '62701', nullable: true }) @IsOptional() @IsString() postal_code?: string | null;
  @ApiPropertyOptional({ type: String, example: 'US', description: 'ISO 3166-1 alpha-2', nullable: true }) @IsOptional() @IsString() country?: string | null;
}

export class CreateCustomerRequest {
  @ApiProperty({ example: 'Acme Corp', maxLength: 200 }) @IsString() name: string;
  @ApiPropertyOptional({ type: String, example: 'ap@acme.example', nullable: true }) @IsOptional() @IsString() email?: string | null;
  @ApiPropertyOptional({ type: String, example: 'CRM-1042', nullable: true, description: 'Your own id; unique per tenant (409 otherwise).' })
  @IsOptional()
  @IsString()
  external_id?: string | null;
  @ApiPropertyOptional({ type: String, example: '+1 555 0100', nullable: true }) @IsOptional() @IsString() phone?: string | null;
  @ApiPropertyOptional({ type: BillingAddressRequest, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => BillingAddressRequest)
  billing_address?: BillingAddressRequest | null;
  @ApiProperty({ example: 'usd', description: 'ISO 4217, either case. All invoices and payments of the customer use it; fixed once it has any.' })
  @IsString()
  currency: string;
  @ApiPropertyOptional({ example: 30, default: 30, minimum: 0, maximum: 365 }) @IsOptional() @IsInt() payment_terms_days?: number;
  @ApiPropertyOptional({ type: 'integer', example: 500000, nullable: true, maximum: MAX_AMOUNT, description: 'Minor units; null = no limit.' })
  @IsOptional()
  @IsAmount()
  credit_limit?: number | null;
  @ApiPropertyOptional({ example: false, default: false }) @IsOptional() @IsBoolean() credit_hold?: boolean;
  @ApiPropertyOptional({ example: { segment: 'enterprise' }, type: 'object', additionalProperties: true })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: [String],
    example: ['ACME Holdings', 'Acme Corp EMEA'],
    maxItems: 50,
    description: 'Names the customer pays under besides its own; a payer name equal to one (after normalisation) identifies the customer (§14). Replaces the list.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  aliases?: string[] | null;
  @ApiPropertyOptional({
    type: [String],
    example: ['DE89370400440532013000'],
    maxItems: 50,
    description: 'IBANs or account numbers the customer pays from (stored without spaces, upper case). Replaces the list.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  payer_accounts?: string[] | null;
}

/** Any subset of the create fields; null clears the nullable ones. */
export class UpdateCustomerRequest extends PartialType(CreateCustomerRequest) {}

export class ListCustomersRequest {
  @ApiPropertyOptional({ description: 'Name, email or external_id contains (case-insensitive).', example: 'acme' })
  @IsOptional()
  @IsString()
  q?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: balance > 0' }) @IsOptional() @IsString() has_balance?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: overdue_amount > 0 (as of today)' }) @IsOptional() @IsString() overdue?: string;
  @ApiPropertyOptional({ description: 'Comma list of ok, over_limit, on_hold', example: 'over_limit,on_hold' })
  @IsOptional()
  @IsString()
  credit_status?: string;
  @ApiPropertyOptional({
    enum: ['created_at', '-created_at', 'name', '-name', 'balance', '-balance', 'overdue_amount', '-overdue_amount'],
    default: '-created_at',
  })
  @IsOptional()
  @IsString()
  sort?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page (same filters and sort)' }) @IsOptional() @IsString() cursor?: string;
  @ApiPropertyOptional({ example: '2026-01-31', description: 'Day the aging buckets are computed for (default today).' })
  @IsOptional()
  @IsString()
  as_of?: string;
}

export class GetCustomerRequest {
  @ApiPropertyOptional({ example: '2026-01-31', description: 'Day the aging buckets are computed for (default today).' })
  @IsOptional()
  @IsString()
  as_of?: string;
}
