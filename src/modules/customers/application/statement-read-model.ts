import { Figure } from '../../../shared/domain/figure';
import { FigureAging } from '../domain/aging';
import { BillingAddress } from '../domain/customer.aggregate';
import { LedgerEntryType } from '../domain/ledger-entry';

export interface StatementLine {
  date: string;
  type: LedgerEntryType;
  reference: string | null;
  description: string;
  debit: number;
  credit: number;
  /** running balance after this line */
  balance: Figure;
}

/** Everything a statement says except its lines (contract §9): known before the first line is sent. */
export interface StatementSummary {
  /** who issues it (printed statements) */
  tenant: { id: string; name: string };
  customer: { id: string; name: string; email: string | null; external_id: string | null; billing_address: BillingAddress | null };
  currency: string;
  from: string;
  to: string;
  opening_balance: Figure;
  total_debits: Figure;
  total_credits: Figure;
  closing_balance: Figure;
  /** what the customer owed as of `to`, by days past due; aging total − unapplied_credit = closing_balance */
  aging: FigureAging;
  /** what payments received and credit notes issued by `to` still held then (unapplied, not refunded, not voided) */
  unapplied_credit: Figure;
  line_count: number;
  generated_at: string;
}

/** A statement being read: its summary, and its lines in posting order. */
export interface StatementReading {
  summary: StatementSummary;
  /** every line when the statement was small enough to read in one statement; null when they come from a cursor */
  inline: StatementLine[] | null;
  /** the lines with their running balance; iterate once */
  lines: AsyncIterable<StatementLine>;
  /** ends the reading early (the client went away); safe to call twice */
  close(): Promise<void>;
}

/** Port: a customer's balance-forward statement (contract §9), its lines read as they are sent. */
export abstract class StatementReadModel {
  abstract open(tenantId: string, customerId: string, from: string | undefined, to: string | undefined, limit?: { lines: number; format: string }): Promise<StatementReading>;
}
