import { Page } from '../../../shared/domain/pagination';
import { CreditNoteJson } from '../domain/credit-note.snapshot';

/** Raw list query parameters (strings, as they arrive). */
export interface CreditNoteListFilters {
  customer_id?: string;
  invoice_id?: string;
  status?: string;
  sort?: string;
  limit?: string;
  cursor?: string;
}

/** Port: credit notes in their public representation (contract §5, §15). */
export abstract class CreditNoteReadModel {
  abstract get(tenantId: string, id: string): Promise<CreditNoteJson>;
  abstract list(tenantId: string, filters: CreditNoteListFilters): Promise<Page<CreditNoteJson>>;
}
