import { ApiProperty } from '@nestjs/swagger';
import { INVOICE_STATUSES } from '../domain/invoice-status';
import { WRITE_OFF_REASONS } from '../domain/write-off';

export class InvoiceCustomerResponse {
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'Acme Corp' }) name: string;
  @ApiProperty({ example: 'ap@acme.example', nullable: true, type: String }) email: string | null;
}

export class LineItemResponse {
  @ApiProperty({ example: 'li_01jc9x7m3ef0ab6yr2t0n4q8ze' }) id: string;
  @ApiProperty({ example: 'Consulting, January' }) description: string;
  @ApiProperty({ type: Number, format: 'double', example: 1.5 }) quantity: number;
  @ApiProperty({ example: 10000 }) unit_amount: number;
  @ApiProperty({ example: 500 }) discount_amount: number;
  @ApiProperty({ type: Number, format: 'double', example: 8.25 }) tax_rate: number;
  @ApiProperty({ example: 14500, description: 'round_half_up(quantity × unit_amount) − discount_amount' }) amount: number;
  @ApiProperty({ example: 1196, description: 'round_half_up(amount × tax_rate / 100)' }) tax_amount: number;
}

export class DisputeResponse {
  @ApiProperty({ enum: ['open', 'resolved'], example: 'open' }) status: string;
  @ApiProperty({ example: 'Goods arrived damaged' }) reason: string;
  @ApiProperty({ example: 15696 }) amount: number;
  @ApiProperty({ example: '2026-01-20T09:30:00.000Z' }) opened_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) resolved_at: string | null;
}

export class InvoicePaymentResponse {
  @ApiProperty({ example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' }) payment_id: string;
  @ApiProperty({ example: 'app_01jc9x7m3ef0ab6yr2t0n4q8zd' }) application_id: string;
  @ApiProperty({ example: 5000 }) amount: number;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) applied_at: string;
}

export class InvoiceResponse {
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'INV-000042' }) number: string;
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) customer_id: string;
  @ApiProperty({ type: InvoiceCustomerResponse }) customer: InvoiceCustomerResponse;
  @ApiProperty({ enum: INVOICE_STATUSES, example: 'open' }) status: string;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({ example: '2026-01-05' }) issue_date: string;
  @ApiProperty({ example: '2026-02-04' }) due_date: string;
  @ApiProperty({ example: 'PO-7781', nullable: true, type: String }) po_number: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) memo: string | null;
  @ApiProperty({ type: [LineItemResponse] }) line_items: LineItemResponse[];
  @ApiProperty({ example: 15000 }) subtotal: number;
  @ApiProperty({ example: 500 }) discount_total: number;
  @ApiProperty({ example: 1196 }) tax_total: number;
  @ApiProperty({ example: 15696, description: 'subtotal − discount_total + tax_total' }) total: number;
  @ApiProperty({ example: 0, description: 'Σ active payment applications' }) amount_paid: number;
  @ApiProperty({ example: 0, description: 'Σ credit notes applied' }) amount_credited: number;
  @ApiProperty({ example: 0, description: 'Σ write-offs' }) amount_written_off: number;
  @ApiProperty({ example: 15696, description: 'total − amount_paid − amount_credited − amount_written_off' }) amount_due: number;
  @ApiProperty({ example: false, description: 'open or partially paid, amount due > 0 and due_date before today' }) overdue: boolean;
  @ApiProperty({ example: 0 }) days_past_due: number;
  @ApiProperty({ type: DisputeResponse, nullable: true }) dispute: DisputeResponse | null;
  @ApiProperty({ example: { project: 'apollo' }, type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ example: 1, description: 'Also the strong ETag ("1")' }) version: number;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
}

export class InvoiceCreditResponse {
  @ApiProperty({ example: 'cn_01jc9x7m3ef0ab6yr2t0n4q8zd' }) credit_note_id: string;
  @ApiProperty({ example: 'cna_01jc9x7m3ef0ab6yr2t0n4q8zd' }) application_id: string;
  @ApiProperty({ example: 2500 }) amount: number;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) applied_at: string;
}

export class WriteOffResponse {
  @ApiProperty({ example: 'wo_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 450, description: 'Minor units' }) amount: number;
  @ApiProperty({ enum: WRITE_OFF_REASONS, example: 'small_balance' }) reason: string;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) created_at: string;
}

export class InvoiceDetailResponse extends InvoiceResponse {
  @ApiProperty({ type: [InvoicePaymentResponse], description: 'Active payment applications' }) payments: InvoicePaymentResponse[];
  @ApiProperty({ type: [InvoiceCreditResponse], description: 'Credit note applications, oldest first' }) credit_notes: InvoiceCreditResponse[];
  @ApiProperty({ type: [WriteOffResponse], description: 'Write-offs, oldest first' }) write_offs: WriteOffResponse[];
}

export class InvoicePageResponse {
  @ApiProperty({ type: [InvoiceResponse] }) data: InvoiceResponse[];
  @ApiProperty({ example: true }) has_more: boolean;
  @ApiProperty({ example: 'eyJ2IjoiMjAyNi0wMS0wNSIsImlkIjoiaW52XzAxIiwiZiI6IjEyMyJ9', nullable: true, type: String }) next_cursor: string | null;
}
