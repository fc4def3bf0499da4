/**
 * A change to what the customer owes, recorded by the invoice aggregate and written to the
 * customer's receivables ledger (contract §9) by the repository in the same transaction.
 */
export interface ReceivableMovement {
  type: 'invoice' | 'void' | 'write_off' | 'adjustment';
  /** business date of the entry: the issue date for a finalization, otherwise the day it happens */
  date: string;
  debit: number;
  credit: number;
  description: string;
}
