import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { LedgerEntryInput } from '../domain/ledger-entry';

/**
 * Writes the customer's receivables ledger (contract §9) inside the transaction of the change
 * that caused the entry. The customer's `balance` follows from the entry in the database
 * (a trigger, ADR 17): it is the ledger's sum whatever writes the ledger.
 * Used by the invoicing repository and by the payments module (payment received: a credit).
 */
@Injectable()
export class LedgerWriter {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** Returns the entry id, or null for an entry that moves nothing (zero debit and credit). */
  async post(entry: LedgerEntryInput): Promise<string | null> {
    if (!this.uow.inTransaction()) throw new Error('LedgerWriter.post() must run inside the transaction of the change');
    for (const side of ['debit', 'credit'] as const) {
      if (!Number.isSafeInteger(entry[side]) || entry[side] < 0) {
        throw ValidationError.field(side, `ledger ${side} must be a non-negative integer`);
      }
    }
    if (entry.debit > 0 && entry.credit > 0) throw ValidationError.field('debit', 'a ledger entry is a debit or a credit, not both');
    if (entry.debit === 0 && entry.credit === 0) return null;
    const id = newId('led');
    await this.uow.query(
      `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        entry.tenantId,
        id,
        entry.customerId,
        entry.entryDate,
        entry.type,
        entry.sourceType,
        entry.sourceId,
        entry.reference,
        entry.description,
        entry.debit,
        entry.credit,
        this.clock.now(),
      ],
    );
    return id;
  }
}
