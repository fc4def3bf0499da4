import { Injectable } from '@nestjs/common';
import { Clock, isDateString } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar } from '../../settings';
import { Aging } from '../domain/aging';
import { BillingAddress } from '../domain/customer.aggregate';
import { LedgerEntryType } from '../domain/ledger-entry';
import { agingFromRow, agingSelectList } from './aging.sql';
import { openInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';

export interface StatementLine {
  date: string;
  type: LedgerEntryType;
  reference: string | null;
  description: string;
  debit: number;
  credit: number;
  /** running balance after this line */
  balance: number;
}

export interface StatementView {
  customer: { id: string; name: string; email: string | null; external_id: string | null; billing_address: BillingAddress | null };
  currency: string;
  from: string;
  to: string;
  opening_balance: number;
  lines: StatementLine[];
  total_debits: number;
  total_credits: number;
  closing_balance: number;
  aging: Aging;
  generated_at: string;
}

/** What a printed statement adds to the JSON: who issues it. */
export interface StatementDocument extends StatementView {
  tenant: { id: string; name: string };
}

/** A ledger entry as the statement query aggregates it: date, type, reference, description, debit, credit. */
type EntryTuple = [string, LedgerEntryType, string | null, string, string, string];

/** The statement query's row: the customer, its tenant's name, the figures and the aging buckets. */
type StatementRow = StatementView['customer'] &
  Record<string, unknown> & { currency: string; tenant_name: string; opening_balance: string; entries: EntryTuple[] | null };

/**
 * Balance-forward statements (contract §9) read from the customer's receivables ledger:
 * opening balance = the entries before `from`, then every entry of the period in posting
 * order with a running balance. By construction opening + debits − credits = closing, and
 * closing is the ledger sum up to `to`, i.e. the customer's balance as of `to`.
 * Aging buckets the open amount due by days past due as of `to`.
 */
@Injectable()
export class StatementReadModel {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly calendar: TenantCalendar,
  ) {}

  /** `from`/`to` default to the first of this month and today (the tenant's); `from` after `to` is a 400. */
  async period(tenantId: string, from: string | undefined, to: string | undefined): Promise<{ from: string; to: string }> {
    for (const [field, value] of [['from', from], ['to', to]] as const) {
      if (value !== undefined && !isDateString(value)) throw ValidationError.field(field, `${field} must be a date (YYYY-MM-DD)`);
    }
    const today = await this.calendar.today(tenantId);
    const period = { from: from ?? `${today.slice(0, 8)}01`, to: to ?? today };
    if (period.from > period.to) throw ValidationError.field('from', `from (${period.from}) must not be after to (${period.to})`);
    return period;
  }

  async get(tenantId: string, customerId: string, rawFrom?: string, rawTo?: string): Promise<StatementDocument> {
    const { from, to } = await this.period(tenantId, rawFrom, rawTo);
    if (!isValidId(customerId, 'cus')) throw new NotFoundError('Customer', customerId);
    // One statement: the customer, the balance brought forward, the period's entries (one JSON
    // array, in posting order) and the open invoices' aging as of the period's end.
    const [customer] = await this.uow.query<StatementRow>(
      `SELECT c.id, c.name, c.email, c.external_id, c.billing_address, c.currency, t.name AS tenant_name,
              (SELECT COALESCE(SUM(l.debit - l.credit), 0) FROM ledger_entries l
                WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date < $3::date)::text AS opening_balance,
              (SELECT json_agg(json_build_array(to_char(l.entry_date, 'YYYY-MM-DD'), l.type, l.reference, l.description, l.debit::text, l.credit::text)
                               ORDER BY l.entry_date, l.seq)
                 FROM ledger_entries l
                WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date BETWEEN $3::date AND $4::date) AS entries,
              ag.*
         FROM customers c
         JOIN tenants t ON t.id = c.tenant_id
        CROSS JOIN LATERAL (
              SELECT ${agingSelectList('i.due_date', 'i.amount_due', '$4')}
                FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}) ag
        WHERE c.tenant_id = $1 AND c.id = $2`,
      [tenantId, customerId, from, to],
    );
    if (!customer) throw new NotFoundError('Customer', customerId);

    const openingBalance = toSafeNumber(customer.opening_balance);
    let balance = openingBalance;
    let totalDebits = 0;
    let totalCredits = 0;
    const lines = (customer.entries ?? []).map(([date, type, reference, description, rawDebit, rawCredit]): StatementLine => {
      const debit = toSafeNumber(rawDebit);
      const credit = toSafeNumber(rawCredit);
      totalDebits += debit;
      totalCredits += credit;
      balance += debit - credit;
      return { date, type, reference, description, debit, credit, balance };
    });
    return {
      tenant: { id: tenantId, name: customer.tenant_name },
      customer: { id: customer.id, name: customer.name, email: customer.email, external_id: customer.external_id, billing_address: customer.billing_address },
      currency: customer.currency,
      from,
      to,
      opening_balance: openingBalance,
      lines,
      total_debits: totalDebits,
      total_credits: totalCredits,
      closing_balance: balance,
      aging: agingFromRow(customer),
      generated_at: this.clock.now().toISOString(),
    };
  }
}
