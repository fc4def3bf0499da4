/** What other modules may use from reminders. */
export { RemindersModule } from './reminders.module';
export { INVOICE_REMINDER } from './domain/reminder-rule';
