import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class StatementRequest {
  @ApiPropertyOptional({ example: '2026-01-01', description: 'First day (inclusive); default the first of this month' })
  @IsOptional()
  @IsString()
  from?: string;
  @ApiPropertyOptional({ example: '2026-01-31', description: 'Last day (inclusive); default today' })
  @IsOptional()
  @IsString()
  to?: string;
}
