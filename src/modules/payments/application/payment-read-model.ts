import { Page } from '../../../shared/domain/pagination';
import { PaymentJson, PaymentSnapshot } from '../domain/payment.snapshot';

export interface ListPaymentsFilters {
  status?: string;
  customer_id?: string;
  method?: string;
  payment_date_from?: string;
  payment_date_to?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** Port: payment list and detail in their public representation (contract §5, §8). */
export abstract class PaymentReadModel {
  abstract get(tenantId: string, id: string): Promise<PaymentJson>;
  abstract list(tenantId: string, filters: ListPaymentsFilters): Promise<Page<PaymentJson>>;
  /**
   * A payment this transaction has just written, presented as get() would read it back (the 201 of
   * POST /payments, built from the rows written instead of a read after commit).
   */
  abstract present(snapshot: PaymentSnapshot): PaymentJson;
}
