import { Injectable, Logger } from '@nestjs/common';
import { PoolClient } from 'pg';
import Cursor from 'pg-cursor';
import { DataSource } from 'typeorm';
import { addDays, Clock, isDateString } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { toFigure, toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { Figure, figure, toBigInt } from '../../../shared/domain/figure';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar } from '../../settings';
import { Aging } from '../domain/aging';
import { BillingAddress } from '../domain/customer.aggregate';
import { LedgerEntryType } from '../domain/ledger-entry';
import { openInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { figureAgingFromRow, agingSelectList } from './aging.sql';
import { StatementLine, StatementSummary, StatementReading, StatementReadModel } from '../application/statement-read-model';

/** A ledger entry as the queries return it: date, type, reference, description, debit, credit. */
type EntryTuple = [string, LedgerEntryType, string | null, string, string, string];

type SummaryRow = StatementSummary['customer'] &
  Record<string, unknown> & {
    currency: string;
    tenant_name: string;
    opening_balance: string;
    total_debits: string;
    total_credits: string;
    line_count: number;
    unapplied_credit: string;
    entries?: EntryTuple[] | null;
  };

/** Lines read in one statement with the summary; more come from a cursor in a snapshot. */
export const INLINE_LINES = 1_000;
const FETCH_LINES = 1_000;
/** Statements read from a cursor at once per instance (each holds a connection while it streams). */
const MAX_SNAPSHOTS = 2;

/**
 * What the customer owed as of `to` ($4), in one subquery: aging buckets (amount, by days past
 * due at `to`) and the unapplied credit. Derived from today's figures by taking back what
 * happened after `to` — the ledger entries dated later, and what credit dated later (payments,
 * credit notes) did — so it reads the open invoices and the entries after `to`, not the whole
 * history. A payment's or credit note's date is that of its ledger credit; its applications count
 * from that date.
 *   amount as of to = amount due now (open invoices, else 0) − the invoice's ledger moves after
 *                     `to` (write-offs, voids, edits…) + what payments and credit notes dated
 *                     after `to` applied to it,
 * for invoices on the ledger by `to` (issued by then).
 *   unapplied credit as of to = what payments have unapplied and credit notes remaining now
 *                     − what those dated after `to` hold + refunds after `to` of credit dated by
 *                     `to` + credit notes dated by `to` voided after it + what credit dated by
 *                     `to` applied to invoices issued after it.
 * Hence, exactly, Σ aging − unapplied_credit = the ledger's sum up to `to` = closing_balance.
 */
const RECEIVABLES_AS_OF_SQL = `
  WITH later AS (
         SELECT l.type, l.source_type, l.source_id, l.debit - l.credit AS delta
           FROM ledger_entries l WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date > $4::date),
       later_payments AS (
         SELECT p.id, p.amount - p.amount_applied - p.amount_refunded AS unapplied FROM payments p
          WHERE p.tenant_id = $1 AND p.id IN (SELECT source_id FROM later WHERE type = 'payment')),
       later_notes AS (
         SELECT n.id, CASE WHEN n.voided_at IS NULL THEN n.amount_remaining ELSE 0 END AS remaining FROM credit_notes n
          WHERE n.tenant_id = $1 AND n.id IN (SELECT source_id FROM later WHERE type = 'credit_note')),
       later_credit AS (SELECT id FROM later_payments UNION ALL SELECT id FROM later_notes),
       later_applications AS (
         SELECT pa.invoice_id, pa.amount FROM payment_applications pa
          WHERE pa.tenant_id = $1 AND pa.reversed_at IS NULL AND pa.payment_id IN (SELECT id FROM later_payments)
         UNION ALL
         SELECT ca.invoice_id, ca.amount FROM credit_note_applications ca
          WHERE ca.tenant_id = $1 AND ca.credit_note_id IN (SELECT id FROM later_notes)),
       candidates AS (
         SELECT i.id FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND ${openInvoiceSql('i.')}
         UNION SELECT source_id FROM later WHERE source_type = 'invoice'
         UNION SELECT invoice_id FROM later_applications),
       as_of AS (
         SELECT i.due_date,
                -- every candidate is finalized, so its 'invoice' entry is dated issue_date
                i.issue_date <= $4::date OR EXISTS (SELECT 1 FROM ledger_entries e
                   WHERE e.tenant_id = $1 AND e.source_type = 'invoice' AND e.source_id = i.id AND e.entry_date <= $4::date) AS receivable,
                (CASE WHEN ${openInvoiceSql('i.')} THEN i.amount_due ELSE 0 END)
                  - COALESCE((SELECT SUM(x.delta) FROM later x WHERE x.source_type = 'invoice' AND x.source_id = i.id), 0)
                  + COALESCE(la.amount, 0) AS amount,
                i.amount_paid + i.amount_credited - COALESCE(la.amount, 0) AS settled_by_earlier_credit
           FROM candidates k
           JOIN invoices i ON i.tenant_id = $1 AND i.id = k.id
           LEFT JOIN LATERAL (SELECT SUM(x.amount) AS amount FROM later_applications x WHERE x.invoice_id = i.id) la ON true)
  SELECT ${agingSelectList('a.due_date', 'CASE WHEN a.receivable THEN a.amount ELSE 0 END', '$4')},
         ((SELECT COALESCE(SUM(p.amount - p.amount_applied - p.amount_refunded), 0) FROM payments p
            WHERE p.tenant_id = $1 AND p.customer_id = $2 AND p.status <> 'applied')
          + (SELECT COALESCE(SUM(n.amount_remaining), 0) FROM credit_notes n
              WHERE n.tenant_id = $1 AND n.customer_id = $2 AND n.status IN ('open', 'partially_applied'))
          - (SELECT COALESCE(SUM(unapplied), 0) FROM later_payments)
          - (SELECT COALESCE(SUM(remaining), 0) FROM later_notes)
          + (SELECT COALESCE(SUM(x.delta), 0) FROM later x JOIN refunds f ON f.tenant_id = $1 AND f.id = x.source_id
              WHERE x.type = 'refund' AND COALESCE(f.payment_id, f.credit_note_id) NOT IN (SELECT id FROM later_credit))
          + (SELECT COALESCE(SUM(x.delta), 0) FROM later x
              WHERE x.type = 'void' AND x.source_type = 'credit_note' AND x.source_id NOT IN (SELECT id FROM later_notes))
          + COALESCE(SUM(a.settled_by_earlier_credit) FILTER (WHERE NOT a.receivable), 0))::text AS unapplied_credit
    FROM as_of a`;

/** The period's entries in posting order ($1 tenant, $2 customer, $3 from, $4 to). */
const LINES_SQL = `SELECT to_char(l.entry_date, 'YYYY-MM-DD') AS date, l.type, l.reference, l.description, l.debit::text AS debit, l.credit::text AS credit
   FROM ledger_entries l
  WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date BETWEEN $3::date AND $4::date
  ORDER BY l.entry_date, l.seq`;

/**
 * The customer, its tenant's name, the period's figures (the opening balance is the customer's
 * balance — the ledger's sum — less the entries from `from` on, so only those are read) and what it
 * owed as of `to`. `$5` lines come along as one JSON array (0: none).
 */
const SUMMARY_SQL = `SELECT c.id, c.name, c.email, c.external_id, c.billing_address, c.currency, t.name AS tenant_name,
        (c.balance - p.from_on)::text AS opening_balance, p.debits::text AS total_debits, p.credits::text AS total_credits, p.line_count,
        (SELECT json_agg(json_build_array(e.date, e.type, e.reference, e.description, e.debit, e.credit))
           FROM (${LINES_SQL} LIMIT $5) e) AS entries,
        r.*
   FROM customers c
   JOIN tenants t ON t.id = c.tenant_id
  CROSS JOIN LATERAL (
        SELECT COALESCE(SUM(l.debit - l.credit), 0) AS from_on,
               COALESCE(SUM(l.debit) FILTER (WHERE l.entry_date <= $4::date), 0) AS debits,
               COALESCE(SUM(l.credit) FILTER (WHERE l.entry_date <= $4::date), 0) AS credits,
               COUNT(*) FILTER (WHERE l.entry_date <= $4::date)::int AS line_count
          FROM ledger_entries l WHERE l.tenant_id = $1 AND l.customer_id = $2 AND l.entry_date >= $3::date) p
  CROSS JOIN LATERAL (${RECEIVABLES_AS_OF_SQL}) r
  WHERE c.tenant_id = $1 AND c.id = $2`;

/** The dates of the `$5`-th and the next line of the period: where a document of `$5` lines must end. */
const CUT_SQL = `SELECT array_agg(e.date) AS dates FROM (${LINES_SQL} OFFSET $5::int - 1 LIMIT 2) e`;

/** The whole period asked for does not fit a document of `limit` lines: a 400 that says how to narrow it. */
export class StatementTooLongError extends ValidationError {
  constructor(lines: number, limit: number, from: string, to: string, lastFittingDay: string | null, format: string) {
    const narrower =
      lastFittingDay && lastFittingDay >= from
        ? `ask for a shorter period: from=${from}&to=${lastFittingDay} holds at most ${limit.toLocaleString('en-US')} lines, then go on from the next day`
        : `a single day has more lines than that`;
    const message =
      `The statement from ${from} to ${to} has ${lines.toLocaleString('en-US')} lines; a ${format} statement holds at most ` +
      `${limit.toLocaleString('en-US')}: ${narrower}, or ask for CSV or JSON (Accept: text/csv or application/json), which have no line limit.`;
    super(message, [{ field: 'to', code: 'statement_too_long', message }]);
  }
}

/**
 * Balance-forward statements (contract §9) read from the customer's receivables ledger. Memory is
 * bounded whatever the customer's history: a statement of at most INLINE_LINES lines is read in
 * one statement (the common case: one round trip); a longer one is read again in a REPEATABLE READ
 * snapshot — summary and lines from one consistent view — with its lines fetched from a cursor
 * FETCH_LINES at a time as the response is written (at most MAX_SNAPSHOTS per instance at once;
 * the others wait their turn). opening + debits − credits = closing by construction, closing is the
 * ledger sum up to `to`, and aging − unapplied credit = closing.
 */
@Injectable()
export class SqlStatementReadModel extends StatementReadModel {
  private readonly logger = new Logger('StatementReadModel');
  private snapshots = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly calendar: TenantCalendar,
  ) {
    super();
  }

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

  /**
   * Opens a statement. `limit` caps the lines of the representation asked for (PDF): beyond it a
   * StatementTooLongError, before anything is sent.
   */
  async open(tenantId: string, customerId: string, rawFrom: string | undefined, rawTo: string | undefined, limit?: { lines: number; format: string }): Promise<StatementReading> {
    const { from, to } = await this.period(tenantId, rawFrom, rawTo);
    if (!isValidId(customerId, 'cus')) throw new NotFoundError('Customer', customerId);
    const params = [tenantId, customerId, from, to];
    const [row] = await this.uow.query<SummaryRow>(SUMMARY_SQL, [...params, INLINE_LINES]);
    if (!row) throw new NotFoundError('Customer', customerId);
    if (limit && row.line_count > limit.lines) {
      const [{ dates }] = await this.uow.query<{ dates: string[] | null }>(CUT_SQL, [...params, limit.lines]);
      const [last, next] = dates ?? [];
      const lastFittingDay = next !== undefined && next === last ? addDays(last, -1) : (last ?? null);
      throw new StatementTooLongError(row.line_count, limit.lines, from, to, lastFittingDay, limit.format);
    }
    if (row.line_count <= INLINE_LINES) {
      const summary = this.summary(tenantId, from, to, row);
      const inline = withBalances(summary.opening_balance, row.entries ?? []);
      return { summary, inline, lines: iterate(inline), close: async () => undefined };
    }
    return this.openSnapshot(tenantId, params, from, to);
  }

  private async openSnapshot(tenantId: string, params: string[], from: string, to: string): Promise<StatementReading> {
    await this.acquire();
    let client: PoolClient | null = null;
    let cursor: Cursor<Record<string, string>> | null = null;
    /** the cursor's read in progress: closing must wait for it (a portal cannot be closed mid-read) */
    let reading: Promise<unknown> | null = null;
    // The connection is held between reads, with no query of ours running while the reader is
    // slow: PostgreSQL ending it then (idle-in-transaction timeout, pg_terminate_backend, a restart)
    // is an 'error' event, which without a listener would end the process. The next read fails
    // instead (a read or close sent on the dead connection would wait forever) and the response is cut.
    let broken: Error | null = null;
    const lost = (error: Error) => {
      broken = error;
      this.logger.warn(`statement connection lost: ${error.message}`);
    };
    const close = async () => {
      const c = client;
      if (!c) return;
      client = null;
      try {
        if (broken) throw broken;
        await reading?.catch(() => undefined);
        await cursor?.close();
        await c.query('COMMIT');
        c.off('error', lost);
        c.release();
      } catch (error) {
        c.off('error', lost);
        c.release(error as Error); // a broken connection is not returned to the pool
      } finally {
        this.releaseSlot();
      }
    };
    try {
      client = await (this.dataSource.driver as unknown as { master: { connect(): Promise<PoolClient> } }).master.connect();
      client.on('error', lost);
      await client.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // A client that stops reading must not hold the snapshot open: PostgreSQL ends the session.
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = '60s'`);
      const { rows } = await client.query<SummaryRow>(SUMMARY_SQL, [...params, 0]);
      if (!rows[0]) throw new NotFoundError('Customer', params[1]);
      const summary = this.summary(tenantId, from, to, rows[0]);
      cursor = client.query(new Cursor<Record<string, string>>(LINES_SQL, params));
      const open = cursor;
      const logger = this.logger;
      async function* lines(): AsyncGenerator<StatementLine> {
        let balance = summary.opening_balance;
        try {
          for (;;) {
            if (broken) throw broken;
            const read = open.read(FETCH_LINES);
            reading = read;
            const batch = await read;
            reading = null;
            for (const r of batch) {
              const line = toLine(balance, [r.date, r.type as LedgerEntryType, r.reference, r.description, r.debit, r.credit]);
              balance = line.balance;
              yield line;
            }
            if (batch.length < FETCH_LINES) return;
          }
        } catch (error) {
          logger.error(`statement lines could not be read: ${(error as Error).message}`);
          broken ??= error as Error; // the connection may be gone: closing must not wait on it
          throw error;
        } finally {
          await close();
        }
      }
      return { summary, inline: null, lines: lines(), close };
    } catch (error) {
      const c = client as PoolClient | null;
      client = null;
      if (c) {
        await c.query('ROLLBACK').catch(() => undefined);
        c.off('error', lost);
        c.release();
      }
      this.releaseSlot();
      throw error;
    }
  }

  private summary(tenantId: string, from: string, to: string, row: SummaryRow): StatementSummary {
    const opening = BigInt(row.opening_balance);
    const debits = BigInt(row.total_debits);
    const credits = BigInt(row.total_credits);
    return {
      tenant: { id: tenantId, name: row.tenant_name },
      customer: { id: row.id, name: row.name, email: row.email, external_id: row.external_id, billing_address: row.billing_address },
      currency: row.currency,
      from,
      to,
      opening_balance: figure(opening),
      total_debits: figure(debits),
      total_credits: figure(credits),
      closing_balance: figure(opening + debits - credits),
      aging: figureAgingFromRow(row),
      unapplied_credit: toFigure(row.unapplied_credit),
      line_count: row.line_count,
      generated_at: this.clock.now().toISOString(),
    };
  }

  private acquire(): Promise<void> {
    if (this.snapshots < MAX_SNAPSHOTS) {
      this.snapshots++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Hands the slot to the next in line, or frees it. */
  private releaseSlot(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.snapshots--;
  }
}

/** One entry with the running balance after it (a sum: exact in bigint whatever its size). */
function toLine(before: Figure, [date, type, reference, description, rawDebit, rawCredit]: EntryTuple): StatementLine {
  const debit = toSafeNumber(rawDebit);
  const credit = toSafeNumber(rawCredit);
  return { date, type, reference, description, debit, credit, balance: figure(toBigInt(before) + BigInt(debit) - BigInt(credit)) };
}

function withBalances(opening: Figure, entries: EntryTuple[]): StatementLine[] {
  let balance = opening;
  return entries.map((e) => {
    const line = toLine(balance, e);
    balance = line.balance;
    return line;
  });
}

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}
