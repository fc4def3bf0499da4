import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MAX_REMINDER_DAYS, MAX_TOLERANCE_AMOUNT, REMINDER_DAY_RANGE } from '../domain/tenant-settings';

export class ShortPayToleranceRequest {
  @ApiProperty({ example: 500, minimum: 0, maximum: MAX_TOLERANCE_AMOUNT, description: 'Minor units' })
  @IsInt()
  @Min(0)
  @Max(MAX_TOLERANCE_AMOUNT)
  amount: number;
  @ApiProperty({ type: Number, format: 'double', example: 1.5, minimum: 0, maximum: 100, description: 'Percent of the amount due, at most 4 decimal places' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  percent: number;
}

export class CashApplicationSettingsRequest {
  @ApiProperty({ type: ShortPayToleranceRequest, description: 'Both must be above 0 to settle short pays' })
  @ValidateNested()
  @Type(() => ShortPayToleranceRequest)
  short_pay_tolerance: ShortPayToleranceRequest;
  @ApiProperty({ example: true, description: 'Identify unknown payers by name (contract §14)' })
  @IsBoolean()
  payer_name_matching: boolean;
}

export class ReminderSettingsRequest {
  @ApiProperty({ example: true }) @IsBoolean() enabled: boolean;
  @ApiProperty({
    example: [-3, 1, 7, 14, 30],
    type: [Number],
    maxItems: MAX_REMINDER_DAYS,
    description: `Days relative to the due date (negative = before it), integers from -${REMINDER_DAY_RANGE} to ${REMINDER_DAY_RANGE}, no repeats; stored ascending`,
  })
  @IsArray()
  @ArrayMaxSize(MAX_REMINDER_DAYS)
  @IsInt({ each: true })
  @Min(-REMINDER_DAY_RANGE, { each: true })
  @Max(REMINDER_DAY_RANGE, { each: true })
  days: number[];
}

/** Each section named replaces the stored one as a whole, so a named section is given in full. */
export class UpdateSettingsRequest {
  @ApiPropertyOptional({ example: 'America/Los_Angeles', maxLength: 64, description: 'IANA time zone name; defines the tenant\'s business dates' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timezone?: string;
  @ApiPropertyOptional({ type: CashApplicationSettingsRequest })
  @IsOptional()
  @ValidateNested()
  @Type(() => CashApplicationSettingsRequest)
  cash_application?: CashApplicationSettingsRequest;
  @ApiPropertyOptional({ type: ReminderSettingsRequest })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReminderSettingsRequest)
  reminders?: ReminderSettingsRequest;
}
