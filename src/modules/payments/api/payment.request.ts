import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { MAX_AMOUNT } from '../../../shared/domain/money';
import { IsMetadata } from '../../../shared/http/metadata.validator';
import { IsAmount } from '../../../shared/http/request-bounds';
import { AUTO_MATCH_MODES, PAYMENT_METHODS } from '../domain/payment.snapshot';

const MAX_REMITTANCE_LINES = 1_000;
const MAX_APPLICATIONS = 1_000;

export class RemittanceLineRequest {
  @ApiPropertyOptional({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'Either invoice_id or invoice_number.' })
  @IsOptional()
  @IsString()
  invoice_id?: string;
  @ApiPropertyOptional({ example: 'INV-000123', description: 'Exact invoice number (case-insensitive).' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  invoice_number?: string;
  @ApiPropertyOptional({ example: 5000, maximum: MAX_AMOUNT, description: 'Minor units; default: the invoice\'s amount due.' })
  @IsOptional()
  @IsAmount(1)
  amount?: number;
}

export class PayerRequest {
  @ApiPropertyOptional({ example: 'ACME Corp.', nullable: true, type: String, maxLength: 200, description: 'As the bank reports it; compared with customers\' names and aliases after normalisation (§14).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string | null;
  @ApiPropertyOptional({ example: 'DE89 3704 0044 0532 0130 00', nullable: true, type: String, maxLength: 64, description: 'IBAN or account number; stored without spaces, upper case.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  account?: string | null;
  @ApiPropertyOptional({ example: 'COBADEFFXXX', nullable: true, type: String, maxLength: 64, description: 'The payer\'s bank (BIC, routing or sort code).' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  bank_id?: string | null;
}

export class RecordPaymentRequest {
  @ApiPropertyOptional({
    example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd',
    nullable: true,
    type: String,
    description: 'Omit (or null) for unidentified cash: remittance or reference may identify the customer.',
  })
  @IsOptional()
  @IsString()
  customer_id?: string | null;
  @ApiProperty({ example: 12550, maximum: MAX_AMOUNT, description: 'Minor units (12550 = 125.50), > 0.' })
  @IsAmount(1)
  amount: number;
  @ApiPropertyOptional({ example: 'usd', description: 'ISO 4217, either case. Required without customer_id; else the customer\'s currency (400 if different).' })
  @IsOptional()
  @IsString()
  currency?: string;
  @ApiPropertyOptional({ example: '2026-01-20', description: 'YYYY-MM-DD; default today.' })
  @IsOptional()
  @IsString()
  payment_date?: string;
  @ApiPropertyOptional({ enum: PAYMENT_METHODS, default: 'other' })
  @IsOptional()
  @IsIn(PAYMENT_METHODS)
  method?: string;
  @ApiPropertyOptional({ example: 'ACH ACME CORP INV-000123 INV-000124', nullable: true, type: String, description: 'Free text; invoice numbers in it are matched (rule 2).' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reference?: string | null;
  @ApiPropertyOptional({ type: [RemittanceLineRequest], description: 'Invoices this payment pays, in order (rule 1).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_REMITTANCE_LINES)
  @ValidateNested({ each: true })
  @Type(() => RemittanceLineRequest)
  remittance?: RemittanceLineRequest[] | null;
  @ApiPropertyOptional({
    type: PayerRequest,
    nullable: true,
    description: 'Who paid. Without customer_id, a payer account linked to one customer, else a payer name equal to one customer\'s name or alias, identifies the customer (§14).',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => PayerRequest)
  payer?: PayerRequest | null;
  @ApiPropertyOptional({ example: 'AAAASESS-FP-CN98765', nullable: true, type: String, maxLength: 128, description: 'The bank\'s id of the entry.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  bank_entry_id?: string | null;
  @ApiPropertyOptional({ enum: AUTO_MATCH_MODES, default: 'strict', description: 'strict: rules 1–4; oldest_first: rules 1–5; none: no automatic matching.' })
  @IsOptional()
  @IsIn(AUTO_MATCH_MODES)
  auto_match?: string;
  @ApiPropertyOptional({ example: { bank_txn: '88123' }, type: 'object', additionalProperties: true })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;
}

export class ApplicationRequest {
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @IsString()
  invoice_id: string;
  @ApiPropertyOptional({ example: 5000, maximum: MAX_AMOUNT, description: 'Minor units; default: the lesser of the invoice\'s amount due and what is left of the payment.' })
  @IsOptional()
  @IsAmount(1)
  amount?: number;
}

export class MatchPaymentRequest {
  @ApiProperty({ type: [ApplicationRequest] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_APPLICATIONS)
  @ValidateNested({ each: true })
  @Type(() => ApplicationRequest)
  applications: ApplicationRequest[];
}

export class ListPaymentsRequest {
  @ApiPropertyOptional({ description: 'Comma list of unapplied, partially_applied, applied', example: 'unapplied,partially_applied' })
  @IsOptional()
  @IsString()
  status?: string;
  @ApiPropertyOptional({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsOptional() @IsString() customer_id?: string;
  @ApiPropertyOptional({ description: `Comma list of ${PAYMENT_METHODS.join(', ')}`, example: 'ach' }) @IsOptional() @IsString() method?: string;
  @ApiPropertyOptional({ example: '2026-01-01', description: 'Inclusive' }) @IsOptional() @IsString() payment_date_from?: string;
  @ApiPropertyOptional({ example: '2026-01-31', description: 'Inclusive' }) @IsOptional() @IsString() payment_date_to?: string;
  @ApiPropertyOptional({ enum: ['created_at', '-created_at', 'payment_date', '-payment_date', 'amount', '-amount'], default: '-created_at' })
  @IsOptional()
  @IsString()
  sort?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page (same filters and sort)' }) @IsOptional() @IsString() cursor?: string;
}
