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

/** The customer's ledger line (contract §9) for a movement of an invoice. */
export function invoiceLedgerEntry(
  invoice: { tenantId: string; id: string; customerId: string; number: string },
  m: ReceivableMovement,
): {
  tenantId: string;
  customerId: string;
  entryDate: string;
  type: ReceivableMovement['type'];
  sourceType: 'invoice';
  sourceId: string;
  reference: string;
  description: string;
  debit: number;
  credit: number;
} {
  return {
    tenantId: invoice.tenantId,
    customerId: invoice.customerId,
    entryDate: m.date,
    type: m.type,
    sourceType: 'invoice',
    sourceId: invoice.id,
    reference: invoice.number,
    description: m.description,
    debit: m.debit,
    credit: m.credit,
  };
}
