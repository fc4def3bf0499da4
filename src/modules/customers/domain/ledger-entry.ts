export const LEDGER_ENTRY_TYPES = ['invoice', 'payment', 'void', 'write_off', 'adjustment', 'credit_note', 'refund'] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

/**
 * One dated line of a customer's receivables ledger (contract §9). Debits raise what the
 * customer owes, credits lower it; the customer's balance is the sum.
 */
export interface LedgerEntryInput {
  tenantId: string;
  customerId: string;
  /** business date: issue_date for invoices, payment_date for payments, else the day it happened */
  entryDate: string;
  type: LedgerEntryType;
  /** the document the entry comes from (the refund itself for a refund) */
  sourceType: 'invoice' | 'payment' | 'credit_note' | 'refund';
  sourceId: string;
  /** what the customer recognises: the invoice or credit note number, the payment reference, the refund id */
  reference: string | null;
  description: string;
  debit: number;
  credit: number;
}
