import { BusinessTime } from '../../../shared/domain/clock';

/**
 * Today as each tenant sees it (contract §13): business dates — default issue and payment
 * dates, due-date arithmetic, overdue, days past due, aging, statement periods, the overdue
 * scan and reminders — are the tenant's local date in its time zone, never the server's.
 * The only place "today" is computed; see docs/adr (tenant time zones).
 */
export abstract class TenantCalendar {
  /** The tenant's business date now (`YYYY-MM-DD`). */
  abstract today(tenantId: string): Promise<string>;
  /** Now, and the tenant's business date at this instant (what aggregates are given). */
  abstract now(tenantId: string): Promise<BusinessTime>;
  /**
   * Today in every time zone a tenant uses, for scans over all tenants in one statement
   * (overdue, reminders): pass `zones` and `dates` as array parameters to `tenantTodaySql`.
   */
  abstract localDates(): Promise<LocalDates>;
}

export interface LocalDates {
  zones: string[];
  dates: string[];
  /** the latest of `dates`: no tenant's today is after it (a cheap pre-filter) */
  latest: string;
}
