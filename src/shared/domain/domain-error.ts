/**
 * Errors raised by the domain and application layers. Each carries a stable `code`
 * that the HTTP layer maps to a status; nothing below `api/` knows about HTTP.
 */
export type DomainErrorCode =
  | 'validation_failed'
  | 'not_found'
  | 'conflict'
  | 'invalid_state'
  | 'precondition_failed'
  | 'forbidden'
  | 'unauthorized'
  | 'idempotency_key_reused'
  | 'invalid_bank_file'
  | 'idempotency_key_in_use'
  | 'rate_limited';

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, errors?: FieldError[]) {
    super('validation_failed', message, errors);
  }

  /** One invalid field: the common case for value objects and aggregates. */
  static field(field: string, message: string, code = 'invalid'): ValidationError {
    return new ValidationError(message, [{ field, code, message }]);
  }
}

export class NotFoundError extends DomainError {
  constructor(resource: string, id?: string) {
    super('not_found', id ? `${resource} ${id} was not found.` : `${resource} was not found.`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class InvalidStateError extends DomainError {
  constructor(message: string) {
    super('invalid_state', message);
  }
}

export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super('precondition_failed', message);
  }
}
