/** Cash application of one tenant over a period (`GET /cash-application/stats`). */
export interface CashApplicationStatsJson {
  from: string;
  to: string;
  /** payments recorded in the period that automatic matching looked at (auto_match not "none") */
  payments: number;
  /** of those, applied by the rules alone, without a person: match status matched or partial by an automatic rule */
  straight_through: number;
  /** straight_through / payments (0 when there are none), four decimals */
  straight_through_rate: number;
  /** waiting for a person now */
  needs_review: number;
  unmatched: number;
  /** matched by a person */
  manual: number;
  /** payments by the rule that applied or found the candidates (match.rule) */
  by_rule: Record<string, number>;
  /** payments by how their customer was found (match.customer_source; `none`: no customer) */
  by_customer_source: Record<string, number>;
}

export abstract class CashApplicationStatsReadModel {
  /** 400 for dates that are not dates or `from` after `to`; defaults: the 30 days up to the tenant's today. */
  abstract stats(tenantId: string, range: { from?: string; to?: string }): Promise<CashApplicationStatsJson>;
}
