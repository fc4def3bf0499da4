/**
 * THE definition of an open and of an overdue invoice (contract §6/§7), the one every reader and
 * writer uses: aging, balances, overdue figures and flags, cash-application candidates, the
 * overdue scan, the database's triggers (through `receivable.sql.ts`, generated from the same
 * constants) and the benchmark's baseline (which loads the compiled file).
 *
 * - open: the invoice still expects money (`open` or `partially_paid`) and something is due;
 * - overdue as of a day: open and due before that day (the tenant's today for "overdue").
 */
export const OPEN_STATUSES = ['open', 'partially_paid'] as const;

export type OpenStatus = (typeof OPEN_STATUSES)[number];

/** A status that takes payments (an invoice in it may still have nothing due, e.g. a zero total). */
export function isOpenStatus(status: string): status is OpenStatus {
  return (OPEN_STATUSES as readonly string[]).includes(status);
}

export function isOpenInvoice(i: { status: string; amountDue: number | bigint }): boolean {
  return isOpenStatus(i.status) && i.amountDue > 0;
}

/** `asOf` and `dueDate` are `YYYY-MM-DD`: the string order is the calendar order. */
export function isOverdueInvoice(i: { status: string; amountDue: number | bigint; dueDate: string }, asOf: string): boolean {
  return isOpenInvoice(i) && i.dueDate < asOf;
}
