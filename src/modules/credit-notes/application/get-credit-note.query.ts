import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CreditNoteJson } from '../domain/credit-note.snapshot';
import { CreditNoteReadModel } from './credit-note-read-model';

export class GetCreditNoteQuery {
  constructor(
    readonly tenantId: string,
    readonly creditNoteId: string,
  ) {}
}

@QueryHandler(GetCreditNoteQuery)
export class GetCreditNoteHandler implements IQueryHandler<GetCreditNoteQuery, CreditNoteJson> {
  constructor(private readonly readModel: CreditNoteReadModel) {}

  execute({ tenantId, creditNoteId }: GetCreditNoteQuery): Promise<CreditNoteJson> {
    return this.readModel.get(tenantId, creditNoteId);
  }
}
