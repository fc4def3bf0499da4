import { Module } from '@nestjs/common';
import { InvoicingModule } from '../invoicing';
import { SettingsModule } from '../settings';
import { ReminderScanJob } from './infrastructure/reminder-scan.job';

/** Payment reminders before and after the due date (contract §16). */
@Module({
  imports: [InvoicingModule, SettingsModule],
  providers: [ReminderScanJob],
})
export class RemindersModule {}
