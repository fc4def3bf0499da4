import { CreditNote } from './credit-note.aggregate';

/** Port for credit notes; the abstract class doubles as the DI token. Every method is scoped to one tenant. */
export abstract class CreditNoteRepository {
  /** Locks the row (SELECT … FOR UPDATE): the first lock of every command on an existing credit note. */
  abstract findByIdForUpdate(tenantId: string, id: string): Promise<CreditNote | null>;

  /**
   * Inserts or updates (checking the version), writes the new applications and ledger movements,
   * and publishes the recorded events — all in the current transaction.
   */
  abstract save(note: CreditNote): Promise<void>;
}

/** Per-tenant credit note numbers CN-000001, CN-000002, …: unique and gapless under concurrency. */
export abstract class CreditNoteNumberRepository {
  abstract next(tenantId: string): Promise<string>;
}
