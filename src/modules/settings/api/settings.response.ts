import { ApiProperty } from '@nestjs/swagger';

export class ShortPayToleranceResponse {
  @ApiProperty({ example: 0, description: 'Minor units' }) amount: number;
  @ApiProperty({ type: Number, format: 'double', example: 1.5, description: 'Percent of the amount due' }) percent: number;
}

export class CashApplicationSettingsResponse {
  @ApiProperty({ type: ShortPayToleranceResponse }) short_pay_tolerance: ShortPayToleranceResponse;
  @ApiProperty({ example: true }) payer_name_matching: boolean;
}

export class ReminderSettingsResponse {
  @ApiProperty({ example: false }) enabled: boolean;
  @ApiProperty({ example: [-3, 1, 7, 14, 30], type: [Number] }) days: number[];
}

export class SettingsResponse {
  @ApiProperty({ example: 'UTC', description: 'IANA time zone: the tenant\'s business dates are its local dates' }) timezone: string;
  @ApiProperty({ type: CashApplicationSettingsResponse }) cash_application: CashApplicationSettingsResponse;
  @ApiProperty({ type: ReminderSettingsResponse }) reminders: ReminderSettingsResponse;
}
