import { ApiProperty } from '@nestjs/swagger';
import { RefundResponse } from '../../../shared/http/refund.dto';
import { InvoiceResponse, LineItemResponse } from '../../invoicing';
import { CREDIT_NOTE_REASONS, CREDIT_NOTE_STATUSES } from '../domain/credit-note.snapshot';

export class CreditNoteApplicationResponse {
  @ApiProperty({ example: 'cna_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }) invoice_id: string;
  @ApiProperty({ example: 2500, description: 'Minor units' }) amount: number;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) applied_at: string;
}

export class CreditNoteResponse {
  @ApiProperty({ example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'CN-000001', description: 'Per tenant, gapless' }) number: string;
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) customer_id: string;
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', nullable: true, type: String, description: 'The invoice it was issued for' }) invoice_id: string | null;
  @ApiProperty({ enum: CREDIT_NOTE_STATUSES, example: 'partially_applied', description: 'open: nothing used; applied: nothing remaining; void' }) status: string;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({ example: 5000, description: 'Minor units' }) amount: number;
  @ApiProperty({ example: 2500, description: 'Σ applications' }) amount_applied: number;
  @ApiProperty({ example: 0, description: 'Σ refunds' }) amount_refunded: number;
  @ApiProperty({ example: 2500, description: 'amount − amount_applied − amount_refunded: the customer\'s credit' }) amount_remaining: number;
  @ApiProperty({ type: [CreditNoteApplicationResponse], description: 'Oldest first' }) applications: CreditNoteApplicationResponse[];
  @ApiProperty({ type: [RefundResponse], description: 'Refunds, oldest first' }) refunds: RefundResponse[];
  @ApiProperty({ enum: CREDIT_NOTE_REASONS, example: 'product_unsatisfactory' }) reason: string;
  @ApiProperty({ example: 'Two units arrived damaged', nullable: true, type: String }) memo: string | null;
  @ApiProperty({ type: [LineItemResponse], description: 'The lines it was created with; empty when created with an amount' }) line_items: LineItemResponse[];
  @ApiProperty({ example: null, nullable: true, type: String }) voided_at: string | null;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) updated_at: string;
}

export class ApplyCreditNoteResponse {
  @ApiProperty({ type: CreditNoteResponse }) credit_note: CreditNoteResponse;
  @ApiProperty({ type: [InvoiceResponse], description: 'The invoices changed, in the order they were named' }) invoices: InvoiceResponse[];
}

export class CreditNotePageResponse {
  @ApiProperty({ type: [CreditNoteResponse] }) data: CreditNoteResponse[];
  @ApiProperty({ example: true }) has_more: boolean;
  @ApiProperty({ example: null, nullable: true, type: String }) next_cursor: string | null;
}
