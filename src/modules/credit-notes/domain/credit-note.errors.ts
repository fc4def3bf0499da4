import { ConflictError, InvalidStateError, NotFoundError } from '../../../shared/domain/domain-error';

/** Errors of credit notes, with the codes clients see (contract §15; applications as §8's manual match). */
export class CreditNoteNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Credit note', id);
  }
}

export class CreditNoteOverAppliedError extends ConflictError {
  constructor(requested: number, remaining: number) {
    super(`The credit note has ${remaining} remaining; ${requested} cannot be applied.`);
  }
}

export class CreditNoteVoidError extends InvalidStateError {
  constructor(number: string) {
    super(`Credit note ${number} is void.`);
  }
}
