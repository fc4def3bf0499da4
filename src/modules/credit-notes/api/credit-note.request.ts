import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MAX_AMOUNT } from '../../../shared/domain/money';
import { IsAmount } from '../../../shared/http/request-bounds';
import { LineItemRequest, MAX_LINES } from '../../invoicing';
import { CREDIT_NOTE_REASONS, CREDIT_NOTE_STATUSES } from '../domain/credit-note.snapshot';

/** Applications per request (docs/security.md), checked before validation. */
export const MAX_CREDIT_APPLICATIONS = 1_000;

export class CreateCreditNoteRequest {
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsString() customer_id: string;
  @ApiPropertyOptional({
    example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd',
    nullable: true,
    type: String,
    description: 'The invoice it is issued for: applied to it at once, up to its amount due; the rest stays the customer\'s credit.',
  })
  @IsOptional()
  @IsString()
  invoice_id?: string | null;
  @ApiPropertyOptional({ example: 'usd', description: "ISO 4217, either case; defaults to the customer's currency and must equal it" })
  @IsOptional()
  @IsString()
  currency?: string;
  @ApiProperty({ enum: CREDIT_NOTE_REASONS, example: 'product_unsatisfactory' }) @IsIn(CREDIT_NOTE_REASONS) reason: string;
  @ApiPropertyOptional({ example: 'Two units arrived damaged', nullable: true, type: String, maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  memo?: string | null;
  @ApiPropertyOptional({ type: [LineItemRequest], maxItems: MAX_LINES, description: 'Either line_items (the amount is their total, computed as an invoice\'s) or amount.' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LINES)
  @ValidateNested({ each: true })
  @Type(() => LineItemRequest)
  line_items?: LineItemRequest[];
  @ApiPropertyOptional({ example: 2500, minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units; either amount or line_items.' })
  @IsOptional()
  @IsAmount(1)
  amount?: number;
}

export class CreditApplicationRequest {
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsString() invoice_id: string;
  @ApiPropertyOptional({ example: 2500, minimum: 1, maximum: MAX_AMOUNT, description: "Minor units; default: the lesser of the invoice's amount due and what the credit note has left." })
  @IsOptional()
  @IsAmount(1)
  amount?: number;
}

export class ApplyCreditNoteRequest {
  @ApiProperty({ type: [CreditApplicationRequest], minItems: 1, maxItems: MAX_CREDIT_APPLICATIONS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CREDIT_APPLICATIONS)
  @ValidateNested({ each: true })
  @Type(() => CreditApplicationRequest)
  applications: CreditApplicationRequest[];
}

export class ListCreditNotesRequest {
  @ApiPropertyOptional({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsOptional() @IsString() customer_id?: string;
  @ApiPropertyOptional({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'Credit notes issued for this invoice or applied to it' })
  @IsOptional()
  @IsString()
  invoice_id?: string;
  @ApiPropertyOptional({ description: `Comma list of ${CREDIT_NOTE_STATUSES.join(', ')}`, example: 'open,partially_applied' }) @IsOptional() @IsString() status?: string;
  @ApiPropertyOptional({ enum: ['created_at', '-created_at', 'amount', '-amount'], default: '-created_at' }) @IsOptional() @IsString() sort?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page (same filters and sort)' }) @IsOptional() @IsString() cursor?: string;
}
