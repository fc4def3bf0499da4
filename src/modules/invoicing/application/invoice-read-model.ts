import { Page } from '../../../shared/domain/pagination';
import { InvoiceJson } from '../domain/invoice.snapshot';
import { WriteOffJson } from '../domain/write-off';

export interface InvoicePaymentView {
  payment_id: string;
  application_id: string;
  amount: number;
  applied_at: string;
}

export interface InvoiceCreditView {
  credit_note_id: string;
  application_id: string;
  amount: number;
  applied_at: string;
}

export interface InvoiceDetailView extends InvoiceJson {
  payments: InvoicePaymentView[];
  credit_notes: InvoiceCreditView[];
  write_offs: WriteOffJson[];
}

/** Raw list query parameters (strings, as they arrive). */
export interface InvoiceListFilters {
  status?: string;
  customer_id?: string;
  currency?: string;
  number?: string;
  overdue?: string;
  disputed?: string;
  issue_date_from?: string;
  issue_date_to?: string;
  due_date_from?: string;
  due_date_to?: string;
  amount_due_min?: string;
  amount_due_max?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** Port: invoice list and detail in their public representation (contract §5, §7). */
export abstract class InvoiceReadModel {
  abstract list(tenantId: string, filters: InvoiceListFilters): Promise<Page<InvoiceJson>>;
  abstract get(tenantId: string, id: string): Promise<InvoiceDetailView>;
}
