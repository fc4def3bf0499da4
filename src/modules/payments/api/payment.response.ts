import { RefundResponse } from '../../../shared/http/refund.dto';
import { ApiProperty } from '@nestjs/swagger';
import { AUTO_MATCH_MODES, CUSTOMER_SOURCES, PAYMENT_METHODS, PAYMENT_STATUSES } from '../domain/payment.snapshot';

const RULES = ['remittance', 'reference', 'exact_amount', 'combination', 'oldest_first'];
/** Customer identification (§14) can find several customers for one payer: then these name the step. */
const PAYER_RULES = ['payer_account', 'payer_name'];

export class PayerResponse {
  @ApiProperty({ example: 'ACME Corp.', nullable: true, type: String }) name: string | null;
  @ApiProperty({ example: 'DE89370400440532013000', nullable: true, type: String, description: 'Without spaces, upper case' }) account: string | null;
  @ApiProperty({ example: 'COBADEFFXXX', nullable: true, type: String }) bank_id: string | null;
}

export class RemittanceLineResponse {
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', required: false }) invoice_id?: string;
  @ApiProperty({ example: 'INV-000123', required: false }) invoice_number?: string;
  @ApiProperty({ example: 5000, required: false }) amount?: number;
}

export class PaymentApplicationResponse {
  @ApiProperty({ example: 'app_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }) invoice_id: string;
  @ApiProperty({ example: 'INV-000123' }) invoice_number: string;
  @ApiProperty({ example: 5000 }) amount: number;
  @ApiProperty({ enum: ['auto', 'manual'] }) source: string;
  @ApiProperty({ example: '2026-01-20T10:00:00.000Z' }) applied_at: string;
}

export class MatchSuggestionResponse {
  @ApiProperty({ type: [String], example: ['inv_01jc9x7m3ef0ab6yr2t0n4q8zd'], description: 'Empty for a candidate customer none of whose invoices fits' })
  invoice_ids: string[];
  @ApiProperty({ enum: [...RULES, ...PAYER_RULES] }) rule: string;
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', nullable: true, type: String, description: 'Whose invoices these are (a candidate customer for payer_account / payer_name)' })
  customer_id: string | null;
  @ApiProperty({ type: Number, format: 'double', example: 0.5, minimum: 0, maximum: 1, description: 'This suggestion\'s share among the equally plausible ones' }) confidence: number;
  @ApiProperty({ example: 'INV-000123 (due 2026-03-01, 1,250.00 USD due): one of 2 open invoices of the customer whose amount due equals 1,250.00 USD.' })
  reason: string;
}

export class MatchWriteOffResponse {
  @ApiProperty({ example: 'wo_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'The invoice write-off (as listed on the invoice)' }) id: string;
  @ApiProperty({ example: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }) invoice_id: string;
  @ApiProperty({ example: 'INV-000123' }) invoice_number: string;
  @ApiProperty({ example: 50, description: 'Minor units written off' }) amount: number;
  @ApiProperty({ enum: ['short_pay'] }) reason: string;
}

export class PaymentMatchResponse {
  @ApiProperty({ enum: ['matched', 'partial', 'unmatched', 'needs_review'] }) status: string;
  @ApiProperty({ enum: [...RULES, 'manual', ...PAYER_RULES], nullable: true, type: String, description: 'The rule that applied or found the candidates; null when unmatched' })
  rule: string | null;
  @ApiProperty({ type: [MatchSuggestionResponse], description: 'With needs_review: candidates for a person to confirm with a manual match' })
  suggestions: MatchSuggestionResponse[];
  @ApiProperty({ enum: CUSTOMER_SOURCES, nullable: true, type: String, description: 'How the customer was found (§14); null while the payment has none' })
  customer_source: string | null;
  @ApiProperty({
    type: [MatchWriteOffResponse],
    description:
      'Short pays automatic matching settled within the tenant\'s short_pay_tolerance (§13): the difference written off per invoice (reason short_pay). Empty when none; kept if applications are later reversed.',
  })
  write_offs: MatchWriteOffResponse[];
}

export class PaymentResponse {
  @ApiProperty({ example: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', nullable: true, type: String, description: 'null: unidentified cash' }) customer_id: string | null;
  @ApiProperty({ example: 12550, description: 'Minor units' }) amount: number;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({ example: '2026-01-20' }) payment_date: string;
  @ApiProperty({ enum: PAYMENT_METHODS }) method: string;
  @ApiProperty({ example: 'INV-000123', nullable: true, type: String }) reference: string | null;
  @ApiProperty({ type: [RemittanceLineResponse] }) remittance: RemittanceLineResponse[];
  @ApiProperty({ type: PayerResponse, nullable: true, description: 'Who paid, when said (§14)' }) payer: PayerResponse | null;
  @ApiProperty({ example: 'AAAASESS-FP-CN98765', nullable: true, type: String, description: 'The bank\'s id of the entry' }) bank_entry_id: string | null;
  @ApiProperty({ enum: PAYMENT_STATUSES, description: 'How much is used (applied or refunded): none, some, all' }) status: string;
  @ApiProperty({ example: 10000 }) amount_applied: number;
  @ApiProperty({ example: 0, description: 'Σ refunds' }) amount_refunded: number;
  @ApiProperty({ example: 2550, description: 'amount − amount_applied − amount_refunded: the customer\'s credit from this payment' }) amount_unapplied: number;
  @ApiProperty({ type: [PaymentApplicationResponse], description: 'Active applications (reversed ones are left out)' }) applications: PaymentApplicationResponse[];
  @ApiProperty({ type: [RefundResponse], description: 'Refunds, oldest first' }) refunds: RefundResponse[];
  @ApiProperty({ type: PaymentMatchResponse }) match: PaymentMatchResponse;
  @ApiProperty({ enum: AUTO_MATCH_MODES }) auto_match: string;
  @ApiProperty({ example: {}, type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ example: '2026-01-20T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-20T10:00:00.000Z' }) updated_at: string;
}

export class PaymentPageResponse {
  @ApiProperty({ type: [PaymentResponse] }) data: PaymentResponse[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ nullable: true, type: String, example: null }) next_cursor: string | null;
}

export class MatchPaymentResponse {
  @ApiProperty({ type: PaymentResponse }) payment: PaymentResponse;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'The updated invoices, as GET /invoices/:id returns them' })
  invoices: Record<string, unknown>[];
}
