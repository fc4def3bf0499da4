import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { BANK_FILE_FORMATS } from '../domain/bank-entry';

export class ImportBankStatementRequest {
  @ApiProperty({ enum: BANK_FILE_FORMATS, description: 'The format of the file in the body (an unknown format is a 400).' })
  @IsString()
  format: string;
}

export class ListBankStatementsRequest {
  @ApiPropertyOptional({ enum: ['processing', 'completed'] }) @IsOptional() @IsString() status?: string;
  @ApiPropertyOptional({ enum: ['created_at', '-created_at'], default: '-created_at' }) @IsOptional() @IsString() sort?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page (same filters and sort)' }) @IsOptional() @IsString() cursor?: string;
}
