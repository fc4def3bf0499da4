import { BankCredit, BankFileFormat } from './bank-entry';
import { BankEntryProblem, BankStatementJson, ImportedMatchStatus } from './bank-statement';

/** A credit waiting in an import for its payment, with its identity key. */
export interface StagedCredit extends BankCredit {
  key: string;
}

/**
 * What became of one staged credit: a new payment, an entry imported before (`paymentId` null),
 * or one the payment rules refused (`error`, counted with the import's errors).
 */
export interface ProcessedCredit {
  position: number;
  paymentId: string | null;
  matchStatus: ImportedMatchStatus | null;
  error?: BankEntryProblem;
}

/** Imports and their staged entries, always within one tenant (the worker's claim aside). */
export abstract class BankStatementRepository {
  /** A new import (processing, nothing counted yet), created before its file is read. */
  abstract create(input: { tenantId: string; id: string; format: BankFileFormat; createdAt: Date }): Promise<void>;
  /** Stages credits of the file being read, in file order. */
  abstract stage(tenantId: string, statementId: string, credits: readonly StagedCredit[]): Promise<void>;
  /** The file has been read: its totals. Skipped entries and bad entries count as processed. */
  abstract finishStaging(tenantId: string, id: string, tally: { total: number; skipped: number; errors: BankEntryProblem[] }): Promise<BankStatementJson>;

  /** Takes an import no live worker holds (never leased, or its lease expired): any tenant's, oldest first. */
  abstract claimNext(owner: string, leaseSeconds: number): Promise<{ tenantId: string; id: string } | null>;
  /**
   * Extends this owner's lease and locks the import row for the transaction; false when the lease was lost.
   * `alone`: the transaction does nothing else (a window's renewal), so its commit need not wait for
   * the WAL flush — a renewal a crash loses only lets the lease run out sooner, and its worker is gone.
   */
  abstract renewLease(tenantId: string, id: string, owner: string, leaseSeconds: number, alone?: boolean): Promise<boolean>;
  /**
   * For one of several transactions working on the import at once (a window's streams): true when
   * this owner still holds the lease, which then cannot be taken over until the transaction ends
   * (a share lock on the import row: the streams do not wait for each other, a claim does).
   */
  abstract holdLease(tenantId: string, id: string, owner: string): Promise<boolean>;
  /** Gives an import back (the worker stops) so another can take it at once. */
  abstract release(tenantId: string, id: string, owner: string): Promise<void>;

  /**
   * The next pending credits at or after position `from`, in file order (every entry before `from`
   * must be processed: the read starts there); with `positions`, those of them still pending.
   */
  abstract pending(tenantId: string, statementId: string, limit: number, positions?: readonly number[], from?: number): Promise<StagedCredit[]>;
  /**
   * Claims the credits' identities (§14): returns the positions whose identity was not imported
   * before — by an earlier import, or earlier in this file. Waits for a concurrent import that
   * claimed the same identity, then counts it as existing.
   */
  abstract claimIdentities(tenantId: string, statementId: string, credits: readonly StagedCredit[]): Promise<Set<number>>;
  /** The match status of payments just created in this transaction. */
  abstract matchStatuses(tenantId: string, paymentIds: readonly string[]): Promise<Map<string, ImportedMatchStatus>>;
  /** Marks the credits processed and counts them on the import. */
  abstract recordProcessed(tenantId: string, statementId: string, processed: readonly ProcessedCredit[]): Promise<void>;
  /**
   * Completes an import with nothing pending and records `bank_statement.completed` (outbox, same
   * transaction); null when something is still pending.
   */
  abstract complete(tenantId: string, id: string, at: Date): Promise<BankStatementJson | null>;
}
