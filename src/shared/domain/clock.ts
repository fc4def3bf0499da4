/**
 * Time as the domain sees it; tests pass a fixed clock. It gives instants only: a business date
 * is the tenant's local date, which the settings module's TenantCalendar derives from this clock.
 */
export abstract class Clock {
  abstract now(): Date;
}

/** A moment as a tenant sees it: the instant, and the business date it falls on in the tenant's time zone. */
export interface BusinessTime {
  readonly now: Date;
  /** `YYYY-MM-DD` */
  readonly today: string;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

export class FixedClock extends Clock {
  constructor(private instant: Date) {
    super();
  }

  now(): Date {
    return new Date(this.instant);
  }

  set(instant: Date): void {
    this.instant = instant;
  }
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC calendar date of an instant (a tenant's business date comes from TenantCalendar). */
export function toDateString(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A real calendar date in `YYYY-MM-DD` form (rejects 2026-02-30). */
export function isDateString(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return toDateString(d);
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
