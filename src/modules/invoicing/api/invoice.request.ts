import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MAX_AMOUNT } from '../../../shared/domain/money';
import { IsMetadata, ReadOnly } from '../../../shared/http/metadata.validator';
import { IsAmount } from '../../../shared/http/request-bounds';
import { INVOICE_STATUSES } from '../domain/invoice-status';
import { MAX_LINES } from '../domain/invoice.aggregate';
import { WRITE_OFF_REASONS } from '../domain/write-off';


export class LineItemRequest {
  @ApiPropertyOptional({ description: 'PATCH only: the id of a current line to keep it', example: 'li_01jc9x7m3ef0ab6yr2t0n4q8zd' })
  @IsOptional()
  @IsString()
  id?: string;
  @ApiProperty({ example: 'Consulting, January', maxLength: 500 }) @IsString() description: string;
  @ApiProperty({ type: Number, format: 'double', example: 1.5, description: '> 0, at most 4 decimal places (computed exactly)' }) @IsNumber() quantity: number;
  @ApiProperty({ example: 10000, maximum: MAX_AMOUNT, description: 'Price per unit in minor units' }) @IsAmount() unit_amount: number;
  @ApiPropertyOptional({ example: 500, default: 0, maximum: MAX_AMOUNT, description: 'Minor units, at most round_half_up(quantity × unit_amount)' })
  @IsOptional()
  @IsAmount()
  discount_amount?: number;
  @ApiPropertyOptional({ type: Number, format: 'double', example: 8.25, default: 0, description: 'Percent, 0–100, at most 4 decimal places' })
  @IsOptional()
  @IsNumber()
  tax_rate?: number;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() amount?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() tax_amount?: unknown;
}

export class BillingAddressInput {
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true }) line1?: string | null;
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true }) line2?: string | null;
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true }) city?: string | null;
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true }) region?: string | null;
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true }) postal_code?: string | null;
  @IsOptional() @IsString() @ApiPropertyOptional({ type: String, nullable: true, example: 'US' }) country?: string | null;
}

/** A customer matched by id, then external_id, then email (case-insensitive); created from these fields when none matches. */
export class InvoiceCustomerRequest {
  @ApiPropertyOptional({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsOptional() @IsString() id?: string;
  @ApiPropertyOptional({ example: 'CRM-1042' }) @IsOptional() @IsString() external_id?: string;
  @ApiPropertyOptional({ example: 'ap@acme.example' }) @IsOptional() @IsString() email?: string;
  @ApiPropertyOptional({ example: 'Acme Corp', description: 'Required when the customer is created' }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ example: '+1 555 0100' }) @IsOptional() @IsString() phone?: string;
  @ApiPropertyOptional({ type: BillingAddressInput })
  @IsOptional()
  @ValidateNested()
  @Type(() => BillingAddressInput)
  billing_address?: BillingAddressInput;
  @ApiPropertyOptional({ example: 'usd', description: "Defaults to the invoice's currency" }) @IsOptional() @IsString() currency?: string;
  @ApiPropertyOptional({ example: 30 }) @IsOptional() @IsInt() payment_terms_days?: number;
  @ApiPropertyOptional({ type: 'integer', example: 500000, nullable: true, maximum: MAX_AMOUNT }) @IsOptional() @IsAmount() credit_limit?: number | null;
  @ApiPropertyOptional({ example: false }) @IsOptional() @IsBoolean() credit_hold?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsMetadata() metadata?: Record<string, unknown>;
}

/** Fields computed by the server: sending any of them is a 400. */
class ReadOnlyInvoiceFields {
  @ApiPropertyOptional({ readOnly: true, type: String }) @ReadOnly() id?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() subtotal?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() discount_total?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() tax_total?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() total?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() amount_paid?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() amount_credited?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() amount_written_off?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() amount_due?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Boolean }) @ReadOnly() overdue?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() days_past_due?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: [Object] }) @ReadOnly() payments?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: [Object] }) @ReadOnly() credit_notes?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: [Object] }) @ReadOnly() write_offs?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: Number }) @ReadOnly() version?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: String }) @ReadOnly() created_at?: unknown;
  @ApiPropertyOptional({ readOnly: true, type: String }) @ReadOnly() updated_at?: unknown;
}

export class CreateInvoiceRequest extends ReadOnlyInvoiceFields {
  @ApiPropertyOptional({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'Either customer_id or customer' })
  @IsOptional()
  @IsString()
  customer_id?: string;
  @ApiPropertyOptional({ type: InvoiceCustomerRequest, description: 'Either customer_id or customer' })
  @IsOptional()
  @ValidateNested()
  @Type(() => InvoiceCustomerRequest)
  customer?: InvoiceCustomerRequest;
  @ApiPropertyOptional({ example: 'INV-000042', description: 'Unique per tenant (409 otherwise); generated as INV-000001… when omitted' })
  @IsOptional()
  @IsString()
  number?: string;
  @ApiPropertyOptional({ enum: ['draft', 'open'], default: 'open' }) @IsOptional() @IsIn(INVOICE_STATUSES) status?: string;
  @ApiPropertyOptional({ example: 'usd', description: "Defaults to the customer's currency; must equal it" }) @IsOptional() @IsString() currency?: string;
  @ApiPropertyOptional({ example: '2026-01-05', description: 'Default today' }) @IsOptional() @IsString() issue_date?: string;
  @ApiPropertyOptional({ example: '2026-02-04', description: "Default issue_date + the customer's payment_terms_days" })
  @IsOptional()
  @IsString()
  due_date?: string;
  @ApiPropertyOptional({ type: String, example: 'PO-7781', nullable: true }) @IsOptional() @IsString() po_number?: string | null;
  @ApiPropertyOptional({ type: String, example: 'Thank you for your business.', nullable: true }) @IsOptional() @IsString() memo?: string | null;
  @ApiProperty({ type: [LineItemRequest] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LINES)
  @ValidateNested({ each: true })
  @Type(() => LineItemRequest)
  line_items: LineItemRequest[];
  @ApiPropertyOptional({ example: { project: 'apollo' }, type: 'object', additionalProperties: true }) @IsOptional() @IsMetadata() metadata?: Record<string, unknown> | null;
}

export class DisputeRequest {
  @ApiProperty({ enum: ['open', 'resolved'] }) @IsIn(['open', 'resolved']) status: 'open' | 'resolved';
  @ApiPropertyOptional({ example: 'Goods arrived damaged', description: 'Required to open a dispute' }) @IsOptional() @IsString() reason?: string;
  @ApiPropertyOptional({ example: 5000, maximum: MAX_AMOUNT, description: 'Disputed amount; defaults to the amount due' }) @IsOptional() @IsAmount() amount?: number;
}

export class UpdateInvoiceRequest extends ReadOnlyInvoiceFields {
  @ApiPropertyOptional({ readOnly: true, type: Object, description: 'change customer_id instead (drafts)' }) @ReadOnly() customer?: unknown;
  @ApiPropertyOptional({
    enum: INVOICE_STATUSES,
    description: 'Transitions: draft→open, draft→void, open→void (nothing applied), open|partially_paid→uncollectible, uncollectible→open; others are 409',
  })
  @IsOptional()
  @IsIn(INVOICE_STATUSES)
  status?: string;
  @ApiPropertyOptional({ description: 'draft only' }) @IsOptional() @IsString() number?: string;
  @ApiPropertyOptional({ description: 'draft only' }) @IsOptional() @IsString() customer_id?: string;
  @ApiPropertyOptional({ description: "draft only; must equal the customer's currency" }) @IsOptional() @IsString() currency?: string;
  @ApiPropertyOptional({ description: 'draft only', example: '2026-01-05' }) @IsOptional() @IsString() issue_date?: string;
  @ApiPropertyOptional({ description: 'draft, open, partially_paid', example: '2026-02-15' }) @IsOptional() @IsString() due_date?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'draft, open, partially_paid' }) @IsOptional() @IsString() po_number?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'any status' }) @IsOptional() @IsString() memo?: string | null;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'any status; replaces the whole object' })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: [LineItemRequest],
    description: 'Replaces all lines. draft; open/partially_paid while the new total stays ≥ amount_paid + amount_credited + amount_written_off',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LINES)
  @ValidateNested({ each: true })
  @Type(() => LineItemRequest)
  line_items?: LineItemRequest[];
  @ApiPropertyOptional({ type: DisputeRequest, description: 'Open ({status: "open", reason, amount?}) or resolve ({status: "resolved"}) a dispute' })
  @IsOptional()
  @ValidateNested()
  @Type(() => DisputeRequest)
  dispute?: DisputeRequest;
}

export class WriteOffInvoiceRequest {
  @ApiPropertyOptional({ example: 450, minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units, at most the amount due; default: all of the amount due' })
  @IsOptional()
  @IsAmount(1)
  amount?: number;
  @ApiProperty({ enum: WRITE_OFF_REASONS, example: 'small_balance' })
  @IsIn(WRITE_OFF_REASONS)
  reason: string;
}

export class ListInvoicesRequest {
  @ApiPropertyOptional({ description: 'Comma list of statuses', example: 'open,partially_paid' }) @IsOptional() @IsString() status?: string;
  @ApiPropertyOptional({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) @IsOptional() @IsString() customer_id?: string;
  @ApiPropertyOptional({ example: 'usd' }) @IsOptional() @IsString() currency?: string;
  @ApiPropertyOptional({ example: 'INV-000042', description: 'Exact, case-insensitive' }) @IsOptional() @IsString() number?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsString() overdue?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: has an open dispute' }) @IsOptional() @IsString() disputed?: string;
  @ApiPropertyOptional({ example: '2026-01-01', description: 'inclusive' }) @IsOptional() @IsString() issue_date_from?: string;
  @ApiPropertyOptional({ example: '2026-01-31', description: 'inclusive' }) @IsOptional() @IsString() issue_date_to?: string;
  @ApiPropertyOptional({ example: '2026-02-01', description: 'inclusive' }) @IsOptional() @IsString() due_date_from?: string;
  @ApiPropertyOptional({ example: '2026-02-28', description: 'inclusive' }) @IsOptional() @IsString() due_date_to?: string;
  @ApiPropertyOptional({ example: '1000', description: 'minor units, inclusive' }) @IsOptional() @IsString() amount_due_min?: string;
  @ApiPropertyOptional({ example: '500000', description: 'minor units, inclusive' }) @IsOptional() @IsString() amount_due_max?: string;
  @ApiPropertyOptional({
    enum: ['created_at', 'issue_date', 'due_date', 'number', 'total', 'amount_due'].flatMap((f) => [f, `-${f}`]),
    default: '-created_at',
  })
  @IsOptional()
  @IsString()
  sort?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page (same filters and sort)' }) @IsOptional() @IsString() cursor?: string;
}
