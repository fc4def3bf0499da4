import { ApiProperty } from '@nestjs/swagger';
import { LEDGER_ENTRY_TYPES } from '../domain/ledger-entry';
import { AgingResponse, BillingAddressResponse } from './customer.response';

export class StatementCustomerResponse {
  @ApiProperty({ example: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 'Acme Corp' }) name: string;
  @ApiProperty({ example: 'ap@acme.example', nullable: true, type: String }) email: string | null;
  @ApiProperty({ example: 'CRM-1042', nullable: true, type: String }) external_id: string | null;
  @ApiProperty({ type: BillingAddressResponse, nullable: true }) billing_address: BillingAddressResponse | null;
}

export class StatementLineResponse {
  @ApiProperty({ example: '2026-01-05', description: 'Entry date: issue_date for invoices, payment_date for payments, else the day it happened' }) date: string;
  @ApiProperty({ enum: LEDGER_ENTRY_TYPES }) type: string;
  @ApiProperty({ example: 'INV-000123', nullable: true, type: String }) reference: string | null;
  @ApiProperty({ example: 'Invoice INV-000123 finalized' }) description: string;
  @ApiProperty({ example: 12550 }) debit: number;
  @ApiProperty({ example: 0 }) credit: number;
  @ApiProperty({ example: 37550, description: 'Running balance after this line' }) balance: number;
}

export class StatementResponse {
  @ApiProperty({ type: StatementCustomerResponse }) customer: StatementCustomerResponse;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({ example: '2026-01-01' }) from: string;
  @ApiProperty({ example: '2026-01-31' }) to: string;
  @ApiProperty({ example: 25000, description: 'Ledger sum before `from`' }) opening_balance: number;
  @ApiProperty({ type: [StatementLineResponse] }) lines: StatementLineResponse[];
  @ApiProperty({ example: 12550 }) total_debits: number;
  @ApiProperty({ example: 0 }) total_credits: number;
  @ApiProperty({ example: 37550, description: 'opening_balance + total_debits − total_credits; the customer\'s balance as of `to`' })
  closing_balance: number;
  @ApiProperty({
    type: AgingResponse,
    description: 'What the customer owed as of `to`: invoices issued by then, their amounts as of `to`, by days past due at `to`. Its total − unapplied_credit = closing_balance',
  })
  aging: AgingResponse;
  @ApiProperty({ example: 5000, description: 'What payments received and credit notes issued by `to` still held then: not applied to an invoice issued by then, not refunded, not voided (applications count from their payment\'s or credit note\'s date)' })
  unapplied_credit: number;
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' }) generated_at: string;
}
