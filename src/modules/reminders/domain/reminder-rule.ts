import { addDays, daysBetween } from '../../../shared/domain/clock';

/** The public event type (contract §10, §16). */
export const INVOICE_REMINDER = 'invoice.reminder';

/**
 * How far back a scan looks after downtime. A reminder day is at most 365 days from the due
 * date (settings), so a year covers every entry; an outage longer than that is not caught up.
 */
export const MAX_CATCH_UP_DAYS = 366;

/**
 * The tenant-local dates a scan covers: after `from` (exclusive) up to `to` = today (inclusive).
 * `scannedThrough` is the last date every reminder of which a complete scan has handled (null: the
 * tenant was never scanned with reminders on, so only today counts — turning reminders on sends
 * no backlog). Today is always in the window: an invoice created or reopened after the day's
 * first scan still gets a reminder due today.
 */
export interface ReminderWindow {
  from: string;
  to: string;
}

export function reminderWindow(scannedThrough: string | null, today: string): ReminderWindow {
  const yesterday = addDays(today, -1);
  let from = scannedThrough === null || scannedThrough > yesterday ? yesterday : scannedThrough;
  if (daysBetween(from, today) > MAX_CATCH_UP_DAYS) from = addDays(today, -MAX_CATCH_UP_DAYS);
  return { from, to: today };
}

/**
 * The due dates of invoices that have a reminder day inside the window: `date − days` for every
 * date of the window and every entry of `days`. Ascending, without repeats; the scan looks up
 * exactly these dates in the open-invoice index by due date (never every open invoice).
 */
export function dueDatesWithReminderIn(window: ReminderWindow, days: readonly number[]): string[] {
  const dates = new Set<string>();
  for (let date = addDays(window.from, 1); date <= window.to; date = addDays(date, 1)) {
    for (const d of days) dates.add(addDays(date, -d));
  }
  return [...dates].sort();
}

/**
 * The reminder an invoice due on `dueDate` gets now (contract §16), or null: the LATEST entry of
 * `days` whose date (`dueDate + days`, the tenant's local date) has come, unless a reminder for
 * that entry or a later one was already sent for this due date (`lastSentDays`). Earlier entries
 * that were missed (downtime) are never sent afterwards: no burst of stale reminders.
 */
export function dueReminder(dueDate: string, days: readonly number[], today: string, lastSentDays: number | null): number | null {
  let latest: number | null = null;
  for (const d of days) if (addDays(dueDate, d) <= today && (latest === null || d > latest)) latest = d;
  if (latest === null || (lastSentDays !== null && lastSentDays >= latest)) return null;
  return latest;
}
