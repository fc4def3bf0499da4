import { Injectable } from '@nestjs/common';
import { isDateString } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar, TenantSettingsReader } from '../../settings';
import { CashApplicationStatsJson, CashApplicationStatsReadModel } from '../domain/cash-application-stats';

const AUTO_RULES = ['remittance', 'reference', 'exact_amount', 'combination', 'oldest_first'];
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;

/**
 * One aggregate over the tenant's payments recorded in the period, read by
 * payments_created_idx (tenant_id, created_at, id): the period bounds the work.
 */
@Injectable()
export class SqlCashApplicationStatsReadModel extends CashApplicationStatsReadModel {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly calendar: TenantCalendar,
    private readonly settings: TenantSettingsReader,
  ) {
    super();
  }

  async stats(tenantId: string, range: { from?: string; to?: string }): Promise<CashApplicationStatsJson> {
    for (const field of ['from', 'to'] as const) {
      if (range[field] !== undefined && !isDateString(range[field])) throw ValidationError.field(field, `${field} must be a date (YYYY-MM-DD)`);
    }
    const to = range.to ?? (await this.calendar.today(tenantId));
    const from = range.from ?? shift(to, -(DEFAULT_DAYS - 1));
    if (from > to) throw ValidationError.field('from', 'from must not be after to');
    if (shift(from, MAX_DAYS) <= to) throw ValidationError.field('from', `the period is at most ${MAX_DAYS} days`);
    // The period is of the tenant's local dates (§13).
    const { timezone } = await this.settings.get(tenantId);
    const rows = await this.uow.query<{ match_status: string; match_rule: string | null; customer_source: string | null; n: number; auto_applied: number }>(
      `SELECT match_status, match_rule, COALESCE(customer_source, CASE WHEN customer_id IS NOT NULL THEN 'request' END) AS customer_source,
              count(*)::int AS n,
              count(*) FILTER (WHERE match_status IN ('matched', 'partial') AND match_rule = ANY($4::text[]))::int AS auto_applied
         FROM payments
        WHERE tenant_id = $1 AND auto_match <> 'none'
          AND created_at >= ($2::date)::timestamp AT TIME ZONE $5 AND created_at < ($3::date + 1)::timestamp AT TIME ZONE $5
        GROUP BY 1, 2, 3`,
      [tenantId, from, to, AUTO_RULES, timezone],
    );
    const sum = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((total, r) => total + pick(r), 0);
    const tally = (key: (r: (typeof rows)[number]) => string) => {
      const out: Record<string, number> = {};
      for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + r.n;
      return out;
    };
    const payments = sum((r) => r.n);
    const straight = sum((r) => r.auto_applied);
    return {
      from,
      to,
      payments,
      straight_through: straight,
      straight_through_rate: payments === 0 ? 0 : Math.round((straight / payments) * 10_000) / 10_000,
      needs_review: sum((r) => (r.match_status === 'needs_review' ? r.n : 0)),
      unmatched: sum((r) => (r.match_status === 'unmatched' ? r.n : 0)),
      manual: sum((r) => (r.match_rule === 'manual' ? r.n : 0)),
      by_rule: tally((r) => r.match_rule ?? 'none'),
      by_customer_source: tally((r) => r.customer_source ?? 'none'),
    };
  }
}

function shift(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
