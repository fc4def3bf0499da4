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

  /**
   * Several entries in one statement, inserted in the order given (the order `post` would have
   * written them one by one); entries that move nothing are left out, as by `post`.
   */
  async postMany(entries: readonly LedgerEntryInput[]): Promise<void> {
    if (!this.uow.inTransaction()) throw new Error('LedgerWriter.postMany() must run inside the transaction of the change');
    const moving = entries.filter((entry) => {
      for (const side of ['debit', 'credit'] as const) {
        if (!Number.isSafeInteger(entry[side]) || entry[side] < 0) {
          throw ValidationError.field(side, `ledger ${side} must be a non-negative integer`);
        }
      }
      if (entry.debit > 0 && entry.credit > 0) throw ValidationError.field('debit', 'a ledger entry is a debit or a credit, not both');
      return entry.debit !== 0 || entry.credit !== 0;
    });
    if (moving.length === 0) return;
    const column = <T>(pick: (e: LedgerEntryInput) => T) => moving.map(pick);
    const now = this.clock.now();
    // WITH ORDINALITY … ORDER BY: rows (and their seq) in the order given.
    await this.uow.query(
      `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       SELECT u.tenant_id, u.id, u.customer_id, u.entry_date, u.type, u.source_type, u.source_id, u.reference, u.description, u.debit, u.credit, $1
         FROM unnest($2::text[], $3::text[], $4::text[], $5::date[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[])
              WITH ORDINALITY AS u (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, n)
        ORDER BY u.n`,
      [
        now,
        column((e) => e.tenantId),
        column(() => newId('led')),
        column((e) => e.customerId),
        column((e) => e.entryDate),
        column((e) => e.type),
        column((e) => e.sourceType),
        column((e) => e.sourceId),
        column((e) => e.reference),
        column((e) => e.description),
        column((e) => e.debit),
        column((e) => e.credit),
      ],
    );
  }

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
    // A new row nothing reads in the transaction before its next statement: held back and sent with
    // it, or with the commit's statement (UnitOfWork.writeBehind); the balance follows at its end.
    // One line per statement (the key): the order of a statement's data-modifying CTEs is not
    // defined, and `seq` keeps a customer's same-day lines in posting order.
    await this.uow.writeBehind({
      sql: `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      params: [
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
    }, 'ledger_entries');
    return id;
  }
}
