import { Injectable } from '@nestjs/common';
import { isDateString } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page, parseSort, SortSpec } from '../../../shared/domain/pagination';
import { toFigure, toNullableNumber, toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { Figure } from '../../../shared/domain/figure';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar } from '../../settings';
import { emptyAging, FigureAging } from '../domain/aging';
import { CREDIT_STATUSES, creditAvailable, CreditStatus, creditStatus } from '../domain/credit';
import { BillingAddress } from '../domain/customer.aggregate';
import { figureAgingFromRow, agingSelectList } from './aging.sql';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, parseBooleanFlag, parseListParams, toPage } from '../../../shared/infrastructure/query/keyset';
import { openInvoiceSql, overdueInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { CustomerRow as StoredCustomerRow } from './customer.mapper';
import { CustomerView, ArSummary, CustomerDetailView, CustomerListFilters, CustomerReadModel } from '../application/customer-read-model';

const SORT_FIELDS = ['created_at', 'name', 'balance', 'overdue_amount'] as const;
type SortField = (typeof SORT_FIELDS)[number];
const SORT_COLUMNS: Record<Exclude<SortField, 'overdue_amount'>, KeysetColumn> = {
  created_at: { sql: 'c.created_at', type: 'timestamptz' },
  name: { sql: 'c.name', type: 'text' },
  balance: { sql: 'c.balance', type: 'bigint' },
};

const CREDIT_STATUS_SQL: Record<CreditStatus, string> = {
  on_hold: 'c.credit_hold',
  over_limit: 'NOT c.credit_hold AND c.credit_limit IS NOT NULL AND c.balance > c.credit_limit',
  ok: 'NOT c.credit_hold AND (c.credit_limit IS NULL OR c.balance <= c.credit_limit)',
};

/** A customers row as the list and detail queries select it (bigints as strings). */
type CustomerRow = Omit<StoredCustomerRow, 'tenant_id' | 'version'> & { balance: string; _keyset_value: string };

/** The detail query's row: the customer, its ar_summary figures and its open invoices' aging. */
type CustomerDetailRow = CustomerRow &
  Record<string, string | number | null> & {
    total_invoiced: string;
    total_paid: string;
    total_credited: string;
    total_written_off: string;
    total_refunded: string;
    average_days: string | null;
    last_payment_id: string | null;
    last_payment_amount: string | null;
    last_payment_date: string | null;
    unapplied: string;
    open_count: number;
    overdue_count: number;
    overdue_amount: string;
  };

const SELECT = `c.id, c.name, c.email, c.external_id, c.phone, c.billing_address, c.currency, c.payment_terms_days,
       c.credit_limit::text, c.credit_hold, c.metadata, c.aliases, c.payer_accounts, c.balance::text, c.created_at, c.updated_at`;

/**
 * The customer detail in one statement whatever the customer's size: the history figures are kept
 * on the row (migration 1763800400000), the rest reads only open invoices and unapplied payments.
 * Built once: the unit of work names prepared statements by their text ($1 tenant, $2 customer,
 * $3 aging as of, $4 today).
 */
const CUSTOMER_DETAIL_SQL = `SELECT ${SELECT}, '' AS _keyset_value,
        c.total_invoiced::text, c.total_paid::text, c.total_credited::text, c.total_written_off::text, c.total_refunded::text,
        ROUND(c.paid_days_sum::numeric / NULLIF(c.paid_invoice_count, 0), 1)::text AS average_days,
        c.last_payment_id, lp.amount::text AS last_payment_amount, c.last_payment_date::text,
        (SELECT COALESCE(SUM(p.amount - p.amount_applied - p.amount_refunded), 0) FROM payments p
          WHERE p.tenant_id = $1 AND p.customer_id = $2 AND p.status <> 'applied')::text AS unapplied,
        o.*
   FROM customers c
   LEFT JOIN payments lp ON lp.tenant_id = c.tenant_id AND lp.id = c.last_payment_id
  CROSS JOIN LATERAL (
        SELECT COUNT(*)::int AS open_count,
               COUNT(*) FILTER (WHERE i.due_date < $4::date)::int AS overdue_count,
               COALESCE(SUM(i.amount_due) FILTER (WHERE i.due_date < $4::date), 0)::text AS overdue_amount,
               ${agingSelectList('i.due_date', 'i.amount_due', '$3')}
          FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}) o
  WHERE c.tenant_id = $1 AND c.id = $2`;

/**
 * Whether the tenant's stored overdue figures hold for `$2` (its today): no customer's are
 * stale (a due date passed since they were counted) or counted for a later day. Two index probes.
 */
const STORED_OVERDUE_HOLDS_SQL = `SELECT NOT EXISTS (SELECT 1 FROM customers WHERE tenant_id = $1 AND overdue_refresh_on <= $2::date)
   AND NOT EXISTS (SELECT 1 FROM customers WHERE tenant_id = $1 AND overdue_as_of > $2::date) AS holds`;

/** Each customer's overdue amount as of `$2`, counted from the open invoices (when the stored figures do not hold). */
const LIVE_OVERDUE_JOIN = `LEFT JOIN (SELECT i.customer_id, SUM(i.amount_due) AS amount FROM invoices i
                          WHERE i.tenant_id = $1 AND ${overdueInvoiceSql('$2')} GROUP BY i.customer_id) live
         ON live.customer_id = c.id`;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (m) => `\\${m}`);
}

/**
 * Customer list and detail read straight from SQL into response shapes; they never write.
 * `balance` is the stored figure (Σ ledger). Overdue amounts and aging are counted from the open
 * invoices of the customers shown (one aggregate over the open-invoice index); only the list's
 * overdue sort and filter, which range over every customer, use the stored overdue figures, and
 * only while they hold for today (ADR 17) — otherwise they count from the open invoices too.
 */
@Injectable()
export class SqlCustomerReadModel extends CustomerReadModel {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly calendar: TenantCalendar,
  ) {
    super();
  }

  async list(tenantId: string, raw: CustomerListFilters): Promise<Page<CustomerView>> {
    const sort = parseSort<SortField>(raw.sort, SORT_FIELDS);
    const q = raw.q === undefined ? undefined : raw.q.trim();
    if (q !== undefined && (q.length === 0 || q.length > 200)) throw ValidationError.field('q', 'q must be 1 to 200 characters');
    const hasBalance = parseBooleanFlag('has_balance', raw.has_balance);
    const overdue = parseBooleanFlag('overdue', raw.overdue);
    const credit = raw.credit_status === undefined ? undefined : [...new Set(raw.credit_status.split(','))].sort();
    if (credit && credit.some((c) => !CREDIT_STATUSES.includes(c as CreditStatus))) {
      throw ValidationError.field('credit_status', `credit_status must be a comma list of ${CREDIT_STATUSES.join(', ')}`);
    }
    const today = await this.calendar.today(tenantId);
    const asOf = this.asOf(raw.as_of, today);
    const list = parseListParams(raw, { q, has_balance: hasBalance, overdue, credit_status: credit, sort: `${sort.direction}:${sort.field}` });

    const params: unknown[] = [tenantId];
    let overdueSql = 'c.overdue_amount';
    let from = 'customers c';
    if ((overdue !== undefined || sort.field === 'overdue_amount') && !(await this.storedOverdueHolds(tenantId, today))) {
      params.push(today); // $2 of LIVE_OVERDUE_JOIN
      overdueSql = 'COALESCE(live.amount, 0)';
      from = `customers c ${LIVE_OVERDUE_JOIN}`;
    }
    const where = ['c.tenant_id = $1'];
    if (q !== undefined) {
      params.push(`%${escapeLike(q)}%`);
      const p = `$${params.length}`;
      where.push(`(c.name ILIKE ${p} OR c.email ILIKE ${p} OR c.external_id ILIKE ${p})`);
    }
    if (hasBalance !== undefined) where.push(hasBalance ? 'c.balance > 0' : 'c.balance <= 0');
    if (overdue !== undefined) where.push(overdue ? `${overdueSql} > 0` : `${overdueSql} = 0`);
    if (credit) where.push(`(${credit.map((c) => `(${CREDIT_STATUS_SQL[c as CreditStatus]})`).join(' OR ')})`);
    const column: KeysetColumn = sort.field === 'overdue_amount' ? { sql: overdueSql, type: 'bigint' } : SORT_COLUMNS[sort.field];
    where.push(keysetCondition(column, 'c.id', sort as SortSpec<string>, list.cursor, params));
    params.push(list.limit + 1);
    const rows = await this.uow.query<CustomerRow>(
      `SELECT ${SELECT}, ${keysetValue(column)}
         FROM ${from}
        WHERE ${where.join(' AND ')}
        ORDER BY ${keysetOrder(column, 'c.id', sort as SortSpec<string>)}
        LIMIT $${params.length}`,
      params,
    );
    const open = await this.openFigures(tenantId, rows.map((r) => r.id), asOf, today);
    return toPage(rows, list, (row) => {
      const figures = open.get(row.id);
      return this.present(row, figures?.aging ?? emptyAging(), figures?.overdue ?? 0);
    });
  }

  async get(tenantId: string, id: string, rawAsOf?: string): Promise<CustomerDetailView> {
    const today = await this.calendar.today(tenantId);
    const asOf = this.asOf(rawAsOf, today);
    if (!isValidId(id, 'cus')) throw new NotFoundError('Customer', id);
    const [row] = await this.uow.query<CustomerDetailRow>(CUSTOMER_DETAIL_SQL, [tenantId, id, asOf, today]);
    if (!row) throw new NotFoundError('Customer', id);
    const view = this.present(row, figureAgingFromRow(row), toFigure(row.overdue_amount));
    return {
      ...view,
      ar_summary: {
        total_invoiced: toFigure(row.total_invoiced),
        total_paid: toFigure(row.total_paid),
        total_credited: toFigure(row.total_credited),
        total_written_off: toFigure(row.total_written_off),
        total_refunded: toFigure(row.total_refunded),
        balance: view.balance,
        unapplied_payments: toFigure(row.unapplied),
        overdue_amount: view.overdue_amount,
        open_invoice_count: row.open_count,
        overdue_invoice_count: row.overdue_count,
        average_days_to_pay: row.average_days === null ? null : Number(row.average_days),
        last_payment: row.last_payment_id
          ? { id: row.last_payment_id, amount: toSafeNumber(row.last_payment_amount), payment_date: row.last_payment_date! }
          : null,
      },
    };
  }

  private asOf(value: string | undefined, today: string): string {
    if (value === undefined) return today;
    if (!isDateString(value)) {
      throw ValidationError.field('as_of', 'as_of must be a date in YYYY-MM-DD form');
    }
    return value;
  }

  private async storedOverdueHolds(tenantId: string, today: string): Promise<boolean> {
    const [row] = await this.uow.query<{ holds: boolean }>(STORED_OVERDUE_HOLDS_SQL, [tenantId, today]);
    return row.holds;
  }

  /** Aging as of a date and the overdue amount as of today of the customers' open invoices: one aggregate over the open-invoice index. */
  private async openFigures(tenantId: string, ids: string[], asOf: string, today: string): Promise<Map<string, { aging: FigureAging; overdue: Figure }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.uow.query<Record<string, string>>(
      `SELECT i.customer_id, COALESCE(SUM(i.amount_due) FILTER (WHERE i.due_date < $4::date), 0)::text AS overdue,
              ${agingSelectList('i.due_date', 'i.amount_due', '$3')}
         FROM invoices i
        WHERE i.tenant_id = $1 AND i.customer_id = ANY($2::text[]) AND ${openInvoiceSql('i.')}
        GROUP BY i.customer_id`,
      [tenantId, ids, asOf, today],
    );
    return new Map(rows.map((r) => [r.customer_id, { aging: figureAgingFromRow(r), overdue: toFigure(r.overdue) }]));
  }

  private present(row: CustomerRow, aging: FigureAging, overdueAmount: Figure): CustomerView {
    const position = { creditLimit: toNullableNumber(row.credit_limit), creditHold: row.credit_hold, balance: toFigure(row.balance) };
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      external_id: row.external_id,
      phone: row.phone,
      billing_address: row.billing_address,
      currency: row.currency,
      payment_terms_days: row.payment_terms_days,
      credit_limit: position.creditLimit,
      credit_hold: row.credit_hold,
      metadata: row.metadata ?? {},
      aliases: row.aliases,
      payer_accounts: row.payer_accounts,
      balance: position.balance,
      overdue_amount: overdueAmount,
      credit_available: creditAvailable(position),
      credit_status: creditStatus(position),
      aging,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}
