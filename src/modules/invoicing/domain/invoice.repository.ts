import { Invoice } from './invoice.aggregate';
import { InvoiceSnapshot } from './invoice.snapshot';

export interface OpenInvoiceQuery {
  limit: number;
  orderBy: 'due_date';
  /** lock the returned rows (in id order) for the transaction */
  forUpdate?: boolean;
}

/**
 * Port for loading and saving invoices. Commands that change an invoice load it with a
 * `...ForUpdate` method so edits and payment applications to one invoice are serialised.
 * Every method is scoped to one tenant; another tenant's invoice is simply not found.
 */
export abstract class InvoiceRepository {
  abstract findById(tenantId: string, id: string): Promise<Invoice | null>;

  /** Several invoices in one statement, in id order, without locking; unknown ids are left out. */
  abstract findByIds(tenantId: string, ids: readonly string[]): Promise<Invoice[]>;

  /** Locks the row (SELECT ... FOR UPDATE) until the transaction ends. */
  abstract findByIdForUpdate(tenantId: string, id: string): Promise<Invoice | null>;

  /** Locks the rows in id order (so concurrent callers cannot deadlock); unknown ids are left out. */
  abstract findByIdsForUpdate(tenantId: string, ids: readonly string[]): Promise<Invoice[]>;

  /** The customer's open and partially paid invoices in `currency`, oldest due first, ties by id. */
  abstract findOpenForCustomer(tenantId: string, customerId: string, currency: string, query: OpenInvoiceQuery): Promise<Invoice[]>;

  /** Exact number matches, case-insensitive (`inv-000001` finds `INV-000001`). */
  abstract findByNumbers(tenantId: string, numbers: readonly string[]): Promise<Invoice[]>;

  /**
   * Inserts or updates (checking and bumping the version), writes the aggregate's ledger
   * movements and publishes its events — all in the current transaction (the customer's
   * figures follow in the database, ADR 17). A duplicate number is a ConflictError.
   */
  abstract save(invoice: Invoice): Promise<void>;

  /**
   * Invoices locked by this transaction whose only changes are settlements (payments applied,
   * write-offs: a bank import group applied set-wise): one UPDATE for all (version-checked
   * against `expectedVersion`, the version they were locked with) and one INSERT of their new
   * write-offs. Ledger movements and events stay with the caller, which pulled them in order.
   */
  abstract saveSettlements(changes: readonly { invoice: Invoice; original: InvoiceSnapshot }[]): Promise<void>;
}
