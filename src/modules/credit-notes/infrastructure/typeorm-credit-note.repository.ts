import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../../shared/domain/domain-error';
import { nextDocumentNumber } from '../../../shared/infrastructure/database/document-counters';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { LedgerWriter } from '../../customers';
import { CreditNote } from '../domain/credit-note.aggregate';
import { CreditNoteNumberRepository, CreditNoteRepository } from '../domain/credit-note.repository';
import { sumRefunds } from '../../../shared/domain/refund';
import { insertRefunds } from '../../../shared/infrastructure/database/refunds.sql';
import { amountAppliedOf } from '../domain/credit-note.snapshot';
import { CREDIT_NOTE_APPLICATIONS_JOIN, CREDIT_NOTE_SELECT, CreditNoteMapper, CreditNoteRow } from './credit-note.mapper';

/**
 * Credit notes in PostgreSQL (plain SQL through the unit of work's transaction). A save writes the
 * row (version-checked), its new applications, its ledger movements, then publishes its events.
 * The figure guards check at commit that amount_applied is the sum of the applications.
 */
@Injectable()
export class TypeormCreditNoteRepository extends CreditNoteRepository {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly ledger: LedgerWriter,
  ) {
    super();
  }

  /**
   * Locks the row first, then reads it with its applications in a statement of its own: a
   * statement that waited for the lock still sees the data of its own start (READ COMMITTED), so
   * one reading the applications while it waits would miss those the previous holder committed.
   */
  async findByIdForUpdate(tenantId: string, id: string): Promise<CreditNote | null> {
    const locked = await this.uow.query(`SELECT 1 FROM credit_notes WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
    if (locked.length === 0) return null;
    const [row] = await this.uow.query<CreditNoteRow>(
      `SELECT ${CREDIT_NOTE_SELECT} FROM credit_notes n ${CREDIT_NOTE_APPLICATIONS_JOIN} WHERE n.tenant_id = $1 AND n.id = $2`,
      [tenantId, id],
    );
    return CreditNote.restore(CreditNoteMapper.toSnapshot(row));
  }

  async save(note: CreditNote): Promise<void> {
    const s = note.toSnapshot();
    const figures = [note.status, amountAppliedOf(s), sumRefunds(s.refunds), s.voidedAt, s.updatedAt];
    if (note.isNew) {
      await this.insert(
        `INSERT INTO credit_notes (tenant_id, id, number, customer_id, invoice_id, currency, amount, reason, memo, line_items,
                                   status, amount_applied, amount_refunded, voided_at, updated_at, version, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, 1, $16)`,
        [s.tenantId, s.id, s.number, s.customerId, s.invoiceId, s.currency, s.amount, s.reason, s.memo, JSON.stringify(s.lineItems), ...figures, s.createdAt],
      );
      note.markPersisted(1);
    } else {
      const rows = await this.uow.query<{ version: number }>(
        `UPDATE credit_notes SET status = $4, amount_applied = $5, amount_refunded = $6, voided_at = $7, updated_at = $8, version = version + 1
          WHERE tenant_id = $1 AND id = $2 AND version = $3 RETURNING version`,
        [s.tenantId, s.id, s.version, ...figures],
      );
      if (rows.length === 0) throw new ConflictError(`Credit note ${s.number} was changed concurrently; retry the request.`);
      note.markPersisted(rows[0].version);
    }
    const added = note.pullNewApplications();
    if (added.length > 0) {
      await this.uow.query(
        `INSERT INTO credit_note_applications (tenant_id, id, credit_note_id, invoice_id, amount, applied_at)
         SELECT $1, a.id, $2, a.invoice_id, a.amount, a.applied_at
           FROM unnest($3::text[], $4::text[], $5::bigint[], $6::timestamptz[]) AS a (id, invoice_id, amount, applied_at)`,
        [s.tenantId, s.id, added.map((a) => a.id), added.map((a) => a.invoiceId), added.map((a) => a.amount), added.map((a) => a.appliedAt)],
      );
    }
    await insertRefunds(this.uow, s.tenantId, { creditNoteId: s.id }, s.customerId, s.currency, note.pullNewRefunds());
    for (const m of note.pullMovements()) {
      await this.ledger.post({
        tenantId: s.tenantId,
        customerId: s.customerId,
        entryDate: m.date,
        type: m.type,
        sourceType: m.refundId ? 'refund' : 'credit_note',
        sourceId: m.refundId ?? s.id,
        reference: m.refundId ?? s.number,
        description: m.description,
        debit: m.debit,
        credit: m.credit,
      });
    }
    await this.uow.publish(note.pullEvents());
  }

  /** The customer's currency changed after it was read: the key that includes it refuses the row (409, as for invoices and payments). */
  private async insert(sql: string, params: unknown[]): Promise<void> {
    try {
      await this.uow.query(sql, params);
    } catch (error) {
      if ((error as { constraint?: string }).constraint === 'credit_notes_customer_currency_fkey') {
        throw new ConflictError(`The customer's currency changed while this request ran; retry the request.`);
      }
      throw error;
    }
  }
}

@Injectable()
export class TypeormCreditNoteNumberRepository extends CreditNoteNumberRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async next(tenantId: string): Promise<string> {
    return `CN-${await nextDocumentNumber(this.uow, 'credit_note_number_counters', tenantId)}`;
  }
}
