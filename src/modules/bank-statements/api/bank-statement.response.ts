import { ApiProperty } from '@nestjs/swagger';
import { BANK_FILE_FORMATS } from '../domain/bank-entry';

export class BankEntryProblemResponse {
  @ApiProperty({ example: 17, description: 'The entry\'s 1-based number in the file' }) entry: number;
  @ApiProperty({ example: 'invalid_amount' }) code: string;
  @ApiProperty({ example: 'amount 12.345 has more decimals than EUR allows (2)' }) message: string;
}

export class BankStatementResponse {
  @ApiProperty({ example: 'bst_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ enum: ['processing', 'completed'] }) status: string;
  @ApiProperty({ enum: BANK_FILE_FORMATS }) format: string;
  @ApiProperty({ example: 1250, description: 'Every entry of the file: payments_created + payments_existing + entries_skipped + errors' })
  entries_total: number;
  @ApiProperty({ example: 800, description: 'Entries done so far (progress)' }) entries_processed: number;
  @ApiProperty({ example: 1100 }) payments_created: number;
  @ApiProperty({ example: 20, description: 'Entries imported before (same statement account and bank entry id, or date, amount and position)' })
  payments_existing: number;
  @ApiProperty({ example: 128, description: 'Debits, reversals and entries not booked' }) entries_skipped: number;
  @ApiProperty({ example: 1000, description: 'Created payments whose match.status is matched or partial' }) matched: number;
  @ApiProperty({ example: 40 }) needs_review: number;
  @ApiProperty({ example: 60 }) unmatched: number;
  @ApiProperty({ type: [BankEntryProblemResponse], description: 'Entries that could not be imported (the others were)' }) errors: BankEntryProblemResponse[];
  @ApiProperty({ example: '2026-11-23T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) completed_at: string | null;
}

export class BankStatementPageResponse {
  @ApiProperty({ type: [BankStatementResponse] }) data: BankStatementResponse[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ nullable: true, type: String, example: null }) next_cursor: string | null;
}
