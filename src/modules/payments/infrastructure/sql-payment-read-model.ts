import { Injectable } from '@nestjs/common';
import { isDateString } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page, parseSort } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, parseListParams, toPage } from '../../../shared/infrastructure/query/keyset';
import { PaymentNotFoundError } from '../domain/payment.errors';
import { PAYMENT_METHODS, PAYMENT_STATUSES, PaymentJson, PaymentSnapshot, presentPayment } from '../domain/payment.snapshot';
import { presentWrittenPayment } from './written-payment';
import { APPLICATIONS_SQL, ApplicationRow, PAYMENT_COLUMNS, PAYMENT_REFUNDS_COLUMN, PaymentMapper, PaymentRow } from './payment.mapper';
import { ListPaymentsFilters, PaymentReadModel } from '../application/payment-read-model';

const SORTS = ['created_at', 'payment_date', 'amount'] as const;
type SortField = (typeof SORTS)[number];
/** Each served by a (tenant_id, column, id) index (migration 1763800200000). */
const SORT_COLUMNS: Record<SortField, KeysetColumn> = {
  created_at: { sql: 'p.created_at', type: 'timestamptz' },
  payment_date: { sql: 'p.payment_date', type: 'date' },
  amount: { sql: 'p.amount', type: 'bigint' },
};

function commaList<T extends string>(field: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const parts = [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
  if (parts.length === 0 || parts.some((p) => !allowed.includes(p as T))) {
    throw ValidationError.field(field, `${field} must be a comma list of ${allowed.join(', ')}`);
  }
  return parts as T[];
}

function dateFilter(field: string, value: string | undefined): string | undefined {
  if (value !== undefined && !isDateString(value)) throw ValidationError.field(field, `${field} must be a date (YYYY-MM-DD)`);
  return value;
}

/** A payment joined with one of its applications (the app_ columns are null when it has none). */
type PaymentWithApplicationRow = PaymentRow & {
  app_id: string | null;
  app_invoice_id: string;
  app_invoice_number: string;
  app_amount: string;
  app_source: ApplicationRow['source'];
  app_applied_at: Date;
  app_reversed_at: Date | null;
};

/** Payments read straight from SQL into their public JSON (no aggregates, tenant first, keyset pages). */
@Injectable()
export class SqlPaymentReadModel extends PaymentReadModel {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async get(tenantId: string, id: string): Promise<PaymentJson> {
    if (!isValidId(id, 'pay')) throw new PaymentNotFoundError(id);
    // One statement: the payment once per application (once with nulls when it has none).
    const rows = await this.uow.query<PaymentWithApplicationRow>(
      `SELECT ${PAYMENT_COLUMNS}, ${PAYMENT_REFUNDS_COLUMN}, a.id AS app_id, a.invoice_id AS app_invoice_id, i.number AS app_invoice_number, a.amount AS app_amount,
              a.source AS app_source, a.applied_at AS app_applied_at, a.reversed_at AS app_reversed_at
         FROM payments p
         LEFT JOIN payment_applications a ON a.tenant_id = p.tenant_id AND a.payment_id = p.id
         LEFT JOIN invoices i ON i.tenant_id = a.tenant_id AND i.id = a.invoice_id
        WHERE p.tenant_id = $1 AND p.id = $2
        ORDER BY a.applied_at, a.id`,
      [tenantId, id],
    );
    if (rows.length === 0) throw new PaymentNotFoundError(id);
    const applications: ApplicationRow[] = rows
      .filter((r) => r.app_id !== null)
      .map((r) => ({
        id: r.app_id!,
        payment_id: r.id,
        invoice_id: r.app_invoice_id,
        invoice_number: r.app_invoice_number,
        amount: r.app_amount,
        source: r.app_source,
        applied_at: r.app_applied_at,
        reversed_at: r.app_reversed_at,
      }));
    return presentPayment(PaymentMapper.toSnapshot(rows[0], applications));
  }

  present(snapshot: PaymentSnapshot): PaymentJson {
    return presentWrittenPayment(snapshot);
  }

  async list(tenantId: string, q: ListPaymentsFilters): Promise<Page<PaymentJson>> {
    const statuses = commaList('status', q.status, PAYMENT_STATUSES);
    const methods = commaList('method', q.method, PAYMENT_METHODS);
    const from = dateFilter('payment_date_from', q.payment_date_from);
    const to = dateFilter('payment_date_to', q.payment_date_to);
    if (from && to && from > to) throw ValidationError.field('payment_date_from', 'payment_date_from must not be after payment_date_to');
    const sort = parseSort<SortField>(q.sort, SORTS);
    const list = parseListParams(q, { status: statuses, customer_id: q.customer_id, method: methods, from, to, sort: `${sort.direction}:${sort.field}` });

    const params: unknown[] = [tenantId];
    const where = ['p.tenant_id = $1'];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (statuses) add((n) => `p.status = ANY(${n}::text[])`, statuses);
    if (q.customer_id !== undefined) add((n) => `p.customer_id = ${n}`, q.customer_id);
    if (methods) add((n) => `p.method = ANY(${n}::text[])`, methods);
    if (from) add((n) => `p.payment_date >= ${n}::date`, from);
    if (to) add((n) => `p.payment_date <= ${n}::date`, to);
    const column = SORT_COLUMNS[sort.field];
    where.push(keysetCondition(column, 'p.id', sort, list.cursor, params));

    const rows = await this.uow.query<PaymentRow & { _keyset_value: string }>(
      `SELECT ${PAYMENT_COLUMNS}, ${PAYMENT_REFUNDS_COLUMN}, ${keysetValue(column)} FROM payments p
        WHERE ${where.join(' AND ')}
        ORDER BY ${keysetOrder(column, 'p.id', sort)}
        LIMIT ${list.limit + 1}`,
      params,
    );
    const page = toPage(rows, list, (row) => row);
    return { ...page, data: await this.presentRows(tenantId, page.data) };
  }

  private async presentRows(tenantId: string, rows: PaymentRow[]): Promise<PaymentJson[]> {
    if (rows.length === 0) return [];
    const applications = await this.uow.query<ApplicationRow>(APPLICATIONS_SQL, [tenantId, rows.map((r) => r.id)]);
    const byPayment = new Map<string, ApplicationRow[]>();
    for (const a of applications) byPayment.set(a.payment_id, [...(byPayment.get(a.payment_id) ?? []), a]);
    return rows.map((row) => presentPayment(PaymentMapper.toSnapshot(row, byPayment.get(row.id) ?? [])));
  }
}
