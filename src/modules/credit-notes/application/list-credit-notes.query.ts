import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { CreditNoteJson } from '../domain/credit-note.snapshot';
import { CreditNoteListFilters, CreditNoteReadModel } from './credit-note-read-model';

export class ListCreditNotesQuery {
  constructor(
    readonly tenantId: string,
    readonly filters: CreditNoteListFilters,
  ) {}
}

@QueryHandler(ListCreditNotesQuery)
export class ListCreditNotesHandler implements IQueryHandler<ListCreditNotesQuery, Page<CreditNoteJson>> {
  constructor(private readonly readModel: CreditNoteReadModel) {}

  execute({ tenantId, filters }: ListCreditNotesQuery): Promise<Page<CreditNoteJson>> {
    return this.readModel.list(tenantId, filters);
  }
}
