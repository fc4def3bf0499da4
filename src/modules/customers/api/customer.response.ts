import { ApiProperty } from '@nestjs/swagger';

export class BillingAddressResponse {
  @ApiProperty({ example: '1 Main Street', nullable: true, type: String }) line1: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) line2: string | null;
  @ApiProperty({ example: 'Springfield', nullable: true, type: String }) city: string | null;
  @ApiProperty({ example: 'IL', nullable: true, type: String }) region: string | null;
  @ApiProperty({ example: '62701', nullable: true, type: String }) postal_code: string | null;
  @ApiProperty({ example: 'US', nullable: true, type: String }) country: string | null;
}

export class AgingResponse {
  @ApiProperty({ example: 120000, description: 'Not yet past due' }) current: number;
  @ApiProperty({ example: 50000 }) days_1_30: number;
  @ApiProperty({ example: 0 }) days_31_60: number;
  @ApiProperty({ example: 0 }) days_61_90: number;
  @ApiProperty({ example: 25000 }) days_over_90: number;
}

export class CustomerResponse {
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'Acme Corp' }) name: string;
  @ApiProperty({ example: 'ap@acme.example', nullable: true, type: String }) email: string | null;
  @ApiProperty({ example: 'CRM-1042', nullable: true, type: String }) external_id: string | null;
  @ApiProperty({ example: '+1 555 0100', nullable: true, type: String }) phone: string | null;
  @ApiProperty({ type: BillingAddressResponse, nullable: true }) billing_address: BillingAddressResponse | null;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({ example: 30 }) payment_terms_days: number;
  @ApiProperty({ example: 500000, nullable: true, type: Number, description: 'Minor units; null = no limit' }) credit_limit: number | null;
  @ApiProperty({ example: false }) credit_hold: boolean;
  @ApiProperty({ example: { segment: 'enterprise' }, type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: [String], example: ['ACME Holdings'], description: 'Names the customer pays under besides its own (§14)' }) aliases: string[];
  @ApiProperty({ type: [String], example: ['DE89370400440532013000'], description: 'Accounts the customer pays from (§14)' }) payer_accounts: string[];
  @ApiProperty({ example: 195000, description: 'Open amount due minus unapplied payments; the ledger sum (§9)' }) balance: number;
  @ApiProperty({ example: 75000, description: 'Open amount due past its due date, as of today' }) overdue_amount: number;
  @ApiProperty({ example: 305000, nullable: true, type: Number, description: 'credit_limit − balance (negative when over); null without a limit' })
  credit_available: number | null;
  @ApiProperty({ enum: ['ok', 'over_limit', 'on_hold'], example: 'ok' }) credit_status: string;
  @ApiProperty({ type: AgingResponse, description: 'Open amount due by days past due as of today (or as_of); adds up to the open amount due' })
  aging: AgingResponse;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) updated_at: string;
}

export class LastPaymentResponse {
  @ApiProperty({ example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 50000 }) amount: number;
  @ApiProperty({ example: '2026-01-20' }) payment_date: string;
}

export class ArSummaryResponse {
  @ApiProperty({ example: 1250000, description: 'Sum of finalized, non-void invoices' }) total_invoiced: number;
  @ApiProperty({ example: 1055000, description: 'Sum of payments received' }) total_paid: number;
  @ApiProperty({ example: 2500, description: 'Sum of credit notes issued, not void' }) total_credited: number;
  @ApiProperty({ example: 4500, description: 'Sum of write-offs, plus the amount due of invoices marked uncollectible' }) total_written_off: number;
  @ApiProperty({ example: 1000, description: 'Sum of refunds of payments and credit notes' }) total_refunded: number;
  @ApiProperty({ example: 195000 }) balance: number;
  @ApiProperty({ example: 0 }) unapplied_payments: number;
  @ApiProperty({ example: 75000 }) overdue_amount: number;
  @ApiProperty({ example: 3 }) open_invoice_count: number;
  @ApiProperty({ example: 1 }) overdue_invoice_count: number;
  @ApiProperty({ example: 27.5, nullable: true, type: Number, format: 'double', description: 'Mean days from issue date to the date paid, over paid invoices' })
  average_days_to_pay: number | null;
  @ApiProperty({ type: LastPaymentResponse, nullable: true }) last_payment: LastPaymentResponse | null;
}

export class CustomerDetailResponse extends CustomerResponse {
  @ApiProperty({ type: ArSummaryResponse }) ar_summary: ArSummaryResponse;
}

export class CustomerPageResponse {
  @ApiProperty({ type: [CustomerResponse] }) data: CustomerResponse[];
  @ApiProperty({ example: true }) has_more: boolean;
  @ApiProperty({ example: 'eyJ2IjoiMjAyNi0wMS0wNSAxMDowMDowMCswMCIsImlkIjoiY3VzXzAxIiwiZiI6IjEyMyJ9', nullable: true, type: String })
  next_cursor: string | null;
}
