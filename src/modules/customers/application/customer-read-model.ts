import { Page } from '../../../shared/domain/pagination';
import { Figure } from '../../../shared/domain/figure';
import { FigureAging } from '../domain/aging';
import { CreditStatus } from '../domain/credit';
import { BillingAddress } from '../domain/customer.aggregate';

export interface CustomerView {
  id: string;
  name: string;
  email: string | null;
  external_id: string | null;
  phone: string | null;
  billing_address: BillingAddress | null;
  currency: string;
  payment_terms_days: number;
  credit_limit: number | null;
  credit_hold: boolean;
  metadata: Record<string, unknown>;
  aliases: string[];
  payer_accounts: string[];
  balance: Figure;
  overdue_amount: Figure;
  credit_available: Figure | null;
  credit_status: CreditStatus;
  aging: FigureAging;
  created_at: string;
  updated_at: string;
}

export interface ArSummary {
  total_invoiced: Figure;
  total_paid: Figure;
  total_credited: Figure;
  total_written_off: Figure;
  total_refunded: Figure;
  balance: Figure;
  unapplied_payments: Figure;
  overdue_amount: Figure;
  open_invoice_count: number;
  overdue_invoice_count: number;
  average_days_to_pay: number | null;
  last_payment: { id: string; amount: number; payment_date: string } | null;
}

export interface CustomerDetailView extends CustomerView {
  ar_summary: ArSummary;
}

/** Raw list query parameters (strings, as they arrive). */
export interface CustomerListFilters {
  q?: string;
  has_balance?: string;
  overdue?: string;
  credit_status?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
  as_of?: string;
}

/** Port: customer list and detail in their response shapes (contract §6), read without writing. */
export abstract class CustomerReadModel {
  abstract list(tenantId: string, filters: CustomerListFilters): Promise<Page<CustomerView>>;
  abstract get(tenantId: string, id: string, asOf?: string): Promise<CustomerDetailView>;
}
