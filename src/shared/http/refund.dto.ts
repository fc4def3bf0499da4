import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_AMOUNT } from '../domain/money';
import { MAX_REFUND_REASON } from '../domain/refund';
import { IsAmount } from './request-bounds';

/** `POST /payments/:id/refunds` and `POST /credit-notes/:id/refunds` (contract §15). */
export class RefundRequest {
  @ApiProperty({ example: 2500, minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units; at most what is unapplied (payment) or remaining (credit note), else 409' })
  @IsAmount(1)
  amount: number;
  @ApiPropertyOptional({ example: 'Customer closed the account', nullable: true, type: String, maxLength: MAX_REFUND_REASON })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REFUND_REASON)
  reason?: string | null;
}

export class RefundResponse {
  @ApiProperty({ example: 'ref_01jc9x7m3ef0ab6yr2t0n4q8zd' }) id: string;
  @ApiProperty({ example: 2500, description: 'Minor units' }) amount: number;
  @ApiProperty({ example: 'Customer closed the account', nullable: true, type: String }) reason: string | null;
  @ApiProperty({ example: '2026-01-21T12:00:00.000Z' }) created_at: string;
}
