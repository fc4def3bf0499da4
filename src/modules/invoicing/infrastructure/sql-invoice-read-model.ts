import { Injectable } from '@nestjs/common';
import { isDateString } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page, parseSort, SortSpec } from '../../../shared/domain/pagination';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar } from '../../settings';
import { overdueInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { KeysetColumn, keysetCondition, keysetOrder, keysetValue, parseBooleanFlag, parseListParams, toPage } from '../../../shared/infrastructure/query/keyset';
import { InvoiceJson, presentInvoice } from '../domain/invoice.snapshot';
import { INVOICE_STATUSES, isInvoiceStatus } from '../domain/invoice-status';
import { presentWriteOff, WriteOffReason } from '../domain/write-off';
import { INVOICE_FROM, INVOICE_VIEW_SELECT, InvoiceMapper, InvoiceViewRow } from './invoice.mapper';
import { InvoiceCreditView, InvoicePaymentView, InvoiceDetailView, InvoiceListFilters, InvoiceReadModel } from '../application/invoice-read-model';

const SORT_FIELDS = ['created_at', 'issue_date', 'due_date', 'number', 'total', 'amount_due'] as const;
type SortField = (typeof SORT_FIELDS)[number];
// Each is served by an index (tenant_id, column, id) created in the migration.
const SORT_COLUMNS: Record<SortField, KeysetColumn> = {
  created_at: { sql: 'i.created_at', type: 'timestamptz' },
  issue_date: { sql: 'i.issue_date', type: 'date' },
  due_date: { sql: 'i.due_date', type: 'date' },
  number: { sql: 'i.number', type: 'text' },
  total: { sql: 'i.total', type: 'bigint' },
  amount_due: { sql: 'i.amount_due', type: 'bigint' },
};

/** Contract §7 `overdue`, as of the date in parameter `p`. */
const overdueSql = (p: string) => `(${overdueInvoiceSql(p, 'i.')})`;

function dateFilter(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isDateString(value)) throw ValidationError.field(field, `${field} must be a date in YYYY-MM-DD form`);
  return value;
}

function amountFilter(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw ValidationError.field(field, `${field} must be a non-negative integer in minor units`);
  return n;
}

function range(fromField: string, toField: string, from: string | number | undefined, to: string | number | undefined): void {
  if (from !== undefined && to !== undefined && from > to) throw ValidationError.field(fromField, `${fromField} must not be after ${toField}`);
}

/** Invoice list and detail read straight from SQL into the public representation. */
/**
 * The invoice detail in one statement: the invoice with its active payment applications (the
 * payments module's `payment_applications`), the credit applied to it (`credit_note_applications`)
 * and its write-offs as parallel arrays, in the order they were made. Built once: the unit of work names prepared statements by their text.
 */
const INVOICE_DETAIL_SQL = `SELECT ${INVOICE_VIEW_SELECT}, a.payment_ids, a.application_ids, a.amounts, a.applied_ats,
        w.write_off_ids, w.write_off_amounts, w.write_off_reasons, w.write_off_ats,
        cr.credit_note_ids, cr.credit_application_ids, cr.credit_amounts, cr.credit_applied_ats
   FROM ${INVOICE_FROM}
   LEFT JOIN LATERAL (
        SELECT array_agg(pa.payment_id ORDER BY pa.applied_at, pa.id) AS payment_ids,
               array_agg(pa.id ORDER BY pa.applied_at, pa.id) AS application_ids,
               array_agg(pa.amount::text ORDER BY pa.applied_at, pa.id) AS amounts,
               array_agg(pa.applied_at ORDER BY pa.applied_at, pa.id) AS applied_ats
          FROM payment_applications pa
         WHERE pa.tenant_id = i.tenant_id AND pa.invoice_id = i.id AND pa.reversed_at IS NULL) a ON true
   LEFT JOIN LATERAL (
        SELECT array_agg(wo.id ORDER BY wo.created_at, wo.id) AS write_off_ids,
               array_agg(wo.amount::text ORDER BY wo.created_at, wo.id) AS write_off_amounts,
               array_agg(wo.reason ORDER BY wo.created_at, wo.id) AS write_off_reasons,
               array_agg(wo.created_at ORDER BY wo.created_at, wo.id) AS write_off_ats
          FROM invoice_write_offs wo
         WHERE wo.tenant_id = i.tenant_id AND wo.invoice_id = i.id) w ON true
   LEFT JOIN LATERAL (
        SELECT array_agg(ca.credit_note_id ORDER BY ca.applied_at, ca.id) AS credit_note_ids,
               array_agg(ca.id ORDER BY ca.applied_at, ca.id) AS credit_application_ids,
               array_agg(ca.amount::text ORDER BY ca.applied_at, ca.id) AS credit_amounts,
               array_agg(ca.applied_at ORDER BY ca.applied_at, ca.id) AS credit_applied_ats
          FROM credit_note_applications ca
         WHERE ca.tenant_id = i.tenant_id AND ca.invoice_id = i.id) cr ON true
  WHERE i.tenant_id = $1 AND i.id = $2`;

type InvoiceDetailRow = InvoiceViewRow & {
  payment_ids: string[] | null;
  application_ids: string[];
  amounts: string[];
  applied_ats: Date[];
  write_off_ids: string[] | null;
  write_off_amounts: string[];
  write_off_reasons: WriteOffReason[];
  write_off_ats: Date[];
  credit_note_ids: string[] | null;
  credit_application_ids: string[];
  credit_amounts: string[];
  credit_applied_ats: Date[];
};

@Injectable()
export class SqlInvoiceReadModel extends InvoiceReadModel {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly calendar: TenantCalendar,
  ) {
    super();
  }

  async list(tenantId: string, raw: InvoiceListFilters): Promise<Page<InvoiceJson>> {
    const sort = parseSort<SortField>(raw.sort, SORT_FIELDS);
    const statuses = raw.status === undefined ? undefined : [...new Set(raw.status.split(',').map((s) => s.trim()))].sort();
    if (statuses && (statuses.length === 0 || statuses.some((s) => !isInvoiceStatus(s)))) {
      throw ValidationError.field('status', `status must be a comma list of ${INVOICE_STATUSES.join(', ')}`);
    }
    const currency = raw.currency === undefined ? undefined : raw.currency.toLowerCase();
    if (currency !== undefined && !/^[a-z]{3}$/.test(currency)) throw ValidationError.field('currency', 'currency must be a three-letter ISO 4217 code');
    const number = raw.number?.trim();
    if (number !== undefined && (number.length === 0 || number.length > 64)) throw ValidationError.field('number', 'number must be 1 to 64 characters');
    const filters = {
      status: statuses,
      customer_id: raw.customer_id,
      currency,
      number: number?.toLowerCase(),
      overdue: parseBooleanFlag('overdue', raw.overdue),
      disputed: parseBooleanFlag('disputed', raw.disputed),
      issue_date_from: dateFilter('issue_date_from', raw.issue_date_from),
      issue_date_to: dateFilter('issue_date_to', raw.issue_date_to),
      due_date_from: dateFilter('due_date_from', raw.due_date_from),
      due_date_to: dateFilter('due_date_to', raw.due_date_to),
      amount_due_min: amountFilter('amount_due_min', raw.amount_due_min),
      amount_due_max: amountFilter('amount_due_max', raw.amount_due_max),
    };
    range('issue_date_from', 'issue_date_to', filters.issue_date_from, filters.issue_date_to);
    range('due_date_from', 'due_date_to', filters.due_date_from, filters.due_date_to);
    range('amount_due_min', 'amount_due_max', filters.amount_due_min, filters.amount_due_max);
    const list = parseListParams(raw, { ...filters, sort: `${sort.direction}:${sort.field}` });

    const today = await this.calendar.today(tenantId);
    const params: unknown[] = [tenantId];
    const where = ['i.tenant_id = $1'];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    // Literals, not a parameter: validated enum values, and a partial index's predicate
    // (invoices_open_due_date_idx) can only be proven from constants.
    if (filters.status) where.push(`i.status IN (${filters.status.map((st) => `'${st}'`).join(', ')})`);
    if (filters.customer_id !== undefined) add((p) => `i.customer_id = ${p}`, filters.customer_id);
    if (filters.currency) add((p) => `i.currency = ${p}`, filters.currency);
    if (filters.number) add((p) => `lower(i.number) = ${p}`, filters.number);
    if (filters.overdue !== undefined) add((p) => (filters.overdue ? overdueSql(p) : `NOT ${overdueSql(p)}`), today);
    if (filters.disputed !== undefined) where.push(filters.disputed ? `i.dispute_status = 'open'` : `i.dispute_status IS DISTINCT FROM 'open'`);
    if (filters.issue_date_from) add((p) => `i.issue_date >= ${p}::date`, filters.issue_date_from);
    if (filters.issue_date_to) add((p) => `i.issue_date <= ${p}::date`, filters.issue_date_to);
    if (filters.due_date_from) add((p) => `i.due_date >= ${p}::date`, filters.due_date_from);
    if (filters.due_date_to) add((p) => `i.due_date <= ${p}::date`, filters.due_date_to);
    if (filters.amount_due_min !== undefined) add((p) => `i.amount_due >= ${p}`, filters.amount_due_min);
    if (filters.amount_due_max !== undefined) add((p) => `i.amount_due <= ${p}`, filters.amount_due_max);
    const column = SORT_COLUMNS[sort.field];
    where.push(keysetCondition(column, 'i.id', sort as SortSpec<string>, list.cursor, params));
    params.push(list.limit + 1);
    const rows = await this.uow.query<InvoiceViewRow & { _keyset_value: string }>(
      `SELECT ${INVOICE_VIEW_SELECT}, ${keysetValue(column)}
         FROM ${INVOICE_FROM}
        WHERE ${where.join(' AND ')}
        ORDER BY ${keysetOrder(column, 'i.id', sort as SortSpec<string>)}
        LIMIT $${params.length}`,
      params,
    );
    return toPage(rows, list, (row) => presentInvoice(InvoiceMapper.toView(row), today));
  }

  async get(tenantId: string, id: string): Promise<InvoiceDetailView> {
    if (!isValidId(id, 'inv')) throw new NotFoundError('Invoice', id);
    const [row] = await this.uow.query<InvoiceDetailRow>(INVOICE_DETAIL_SQL, [tenantId, id]);
    if (!row) throw new NotFoundError('Invoice', id);
    const payments: InvoicePaymentView[] = (row.payment_ids ?? []).map((paymentId, k) => ({
      payment_id: paymentId,
      application_id: row.application_ids[k],
      amount: toSafeNumber(row.amounts[k]),
      applied_at: row.applied_ats[k].toISOString(),
    }));
    const writeOffs = (row.write_off_ids ?? []).map((writeOffId, k) =>
      presentWriteOff({ id: writeOffId, amount: toSafeNumber(row.write_off_amounts[k]), reason: row.write_off_reasons[k], createdAt: row.write_off_ats[k] }),
    );
    const credits: InvoiceCreditView[] = (row.credit_note_ids ?? []).map((creditNoteId, k) => ({
      credit_note_id: creditNoteId,
      application_id: row.credit_application_ids[k],
      amount: toSafeNumber(row.credit_amounts[k]),
      applied_at: row.credit_applied_ats[k].toISOString(),
    }));
    return { ...presentInvoice(InvoiceMapper.toView(row), await this.calendar.today(tenantId)), payments, credit_notes: credits, write_offs: writeOffs };
  }
}
