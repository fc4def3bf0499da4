import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { LedgerWriter } from '../../customers';
import { Payment } from '../domain/payment.aggregate';
import { PaymentApplication } from '../domain/payment-application.entity';
import { PaymentRepository } from '../domain/payment.repository';
import { paymentLedgerEntry } from '../application/payment-ledger';
import { insertRefunds, RefundJsonRow, refundsFromJson } from '../../../shared/infrastructure/database/refunds.sql';
import { APPLICATIONS_SQL, ApplicationRow, PAYMENT_COLUMNS, PaymentMapper, PaymentRow, REFUNDS_SQL } from './payment.mapper';

const identity = (tenantId: string, id: string) => `payment:${tenantId}:${id}`;

/** The customer's currency changed after it was read: the key that includes it refuses the row (migration 1763801200200). */
function currencyChanged(error: unknown): Error | undefined {
  if ((error as { constraint?: string }).constraint !== 'payments_customer_currency_fkey') return undefined;
  return new ConflictError(`The customer's currency changed while this request ran; retry the request.`);
}

const APPLICATION_COLUMNS = 'tenant_id, id, payment_id, invoice_id, amount, source, applied_at, reversed_at';

/**
 * `($n, …)` tuples of new applications, their values appended to `params`. The VALUES list is
 * not an INSERT's own, so the parameters carry their column types.
 */
function applicationTuples(payment: Payment, added: readonly PaymentApplication[], params: unknown[]): string {
  const types = ['::text', '::text', '::text', '::text', '::bigint', '::text', '::timestamptz', '::timestamptz'];
  return added
    .map((a) => {
      const first = params.length;
      params.push(payment.tenantId, a.id, payment.id, a.invoiceId, a.amount, a.source, a.appliedAt, a.reversedAt);
      return `(${types.map((t, i) => `$${first + i + 1}${t}`).join(', ')})`;
    })
    .join(', ');
}

/**
 * Payments in PostgreSQL (plain SQL through the unit of work's transaction).
 * A save writes the row (version-checked), the applications that changed, then publishes the
 * events (in-transaction handlers run here: auto-matching on payment.created), and only then
 * posts the ledger credit — so every cash-application transaction takes its locks in one
 * order: payment, invoices (by id), customer.
 */
@Injectable()
export class TypeormPaymentRepository extends PaymentRepository {
  /** Payments insert() has published but not written yet (see insert()). */
  private readonly unwritten = new WeakSet<Payment>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly ledger: LedgerWriter,
  ) {
    super();
  }

  async findByIdForUpdate(tenantId: string, id: string): Promise<Payment | null> {
    // Inserted by this transaction (auto-matching on payment.created): the row is locked already
    // and the aggregate in hand is what a re-read would restore.
    const inserted = this.uow.recall<Payment>(identity(tenantId, id));
    if (inserted) return inserted;
    const [row] = await this.uow.query<PaymentRow>(
      `SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.tenant_id = $1 AND p.id = $2 FOR UPDATE`,
      [tenantId, id],
    );
    if (!row) return null;
    // Read after the lock, in statements of their own: they see what the previous holder committed.
    const applications = await this.uow.query<ApplicationRow>(APPLICATIONS_SQL, [tenantId, [id]]);
    const refunds = await this.uow.query<{ refund: RefundJsonRow }>(REFUNDS_SQL, [tenantId, id]);
    return Payment.restore(PaymentMapper.toSnapshot(row, applications, refundsFromJson(refunds.map((r) => r.refund))));
  }

  /**
   * Records a new payment. Its row is written once automatic matching, which runs on the
   * payment.created published here (in this transaction), has decided: save() then writes the
   * row as it ends up, with its applications, in one INSERT — not an INSERT and then an UPDATE of
   * the same row (a second version of it in every index, and a second figure check at commit).
   * No other transaction can see or lock the row before commit either way, and every statement
   * that needs it (applications, the ledger line, the caller's) comes after it.
   */
  async insert(payment: Payment): Promise<void> {
    if (payment.applicationChanges.added.length > 0) throw new Error(`payment ${payment.id}: insert it before applying it, then save()`);
    payment.version = 1;
    this.uow.remember(identity(payment.tenantId, payment.id), payment);
    this.unwritten.add(payment);
    await this.uow.publish(payment.pullEvents());
    if (this.unwritten.delete(payment)) await this.writeNew(payment); // not saved by matching (none, unmatched)
    await this.afterWrite(payment);
  }

  /** The row of a payment insert() has not written yet, as it is now, with its new applications. */
  private async writeNew(payment: Payment): Promise<void> {
    const s = payment.toSnapshot();
    const params: unknown[] = [
      s.tenantId, s.id, s.customerId, s.amount, payment.amountApplied.amount, s.currency, s.paymentDate, s.method, s.reference,
      PaymentMapper.remittanceToJson(s.remittance), payment.status, s.autoMatch, s.match.status, s.match.rule,
      JSON.stringify(s.match.suggestions), JSON.stringify(s.metadata), payment.version, s.createdAt, s.updatedAt,
      s.payer?.name ?? null, s.payer?.account ?? null, s.payer?.bankId ?? null, s.bankEntryId, s.customerSource,
      payment.amountRefunded.amount, PaymentMapper.writeOffsToJson(s.match.writeOffs),
    ];
    const insert = `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, reference, remittance,
                             status, auto_match, match_status, match_rule, match_suggestions, metadata, version, created_at, updated_at,
                             payer_name, payer_account, payer_bank_id, bank_entry_id, customer_source, amount_refunded, match_write_offs)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15::jsonb, $16::jsonb, $17, $18, $19, $20, $21, $22, $23, $24,
               $25, $26::jsonb)`;
    const added = payment.applicationChanges.added;
    // New rows (the payment's and its applications'), nothing in the transaction reads them before
    // its next statement: held back and sent with it, or with the commit's statement (the invoices'
    // updates, the ledger line, the outbox), one round trip for all (UnitOfWork.writeBehind). The
    // applications' keys are checked at the end of that statement, the payment row in it.
    await this.uow.writeBehind({ sql: insert, params, failed: currencyChanged });
    if (added.length > 0) {
      const values: unknown[] = [];
      await this.uow.writeBehind({
        sql: `INSERT INTO payment_applications (${APPLICATION_COLUMNS})
           SELECT v.* FROM (VALUES ${applicationTuples(payment, added, values)}) AS v (${APPLICATION_COLUMNS})`,
        params: values,
      });
    }
  }

  async insertMany(payments: readonly Payment[]): Promise<void> {
    if (payments.length === 0) return;
    const rows = payments.map((p) => ({ payment: p, s: p.toSnapshot() }));
    const column = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
    await this.write(() =>
      this.uow.query(
        `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, reference, remittance,
                               status, auto_match, match_status, match_rule, match_suggestions, match_write_offs, metadata, version, created_at,
                               updated_at, payer_name, payer_account, payer_bank_id, bank_entry_id, customer_source)
         SELECT u.* FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::date[], $8::text[], $9::text[],
                                $10::jsonb[], $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::int[],
                                $19::timestamptz[], $20::timestamptz[], $21::text[], $22::text[], $23::text[], $24::text[], $25::text[]) AS u`,
        [
          column((r) => r.s.tenantId),
          column((r) => r.s.id),
          column((r) => r.s.customerId),
          column((r) => r.s.amount),
          column((r) => r.payment.amountApplied.amount),
          column((r) => r.s.currency),
          column((r) => r.s.paymentDate),
          column((r) => r.s.method),
          column((r) => r.s.reference),
          column((r) => PaymentMapper.remittanceToJson(r.s.remittance)),
          column((r) => r.payment.status),
          column((r) => r.s.autoMatch),
          column((r) => r.s.match.status),
          column((r) => r.s.match.rule),
          column((r) => JSON.stringify(r.s.match.suggestions)),
          column((r) => PaymentMapper.writeOffsToJson(r.s.match.writeOffs)),
          column((r) => JSON.stringify(r.s.metadata)),
          column((r) => r.payment.version),
          column((r) => r.s.createdAt),
          column((r) => r.s.updatedAt),
          column((r) => r.s.payer?.name ?? null),
          column((r) => r.s.payer?.account ?? null),
          column((r) => r.s.payer?.bankId ?? null),
          column((r) => r.s.bankEntryId),
          column((r) => r.s.customerSource),
        ],
      ),
    );
    const added = payments.flatMap((p) => p.applicationChanges.added.map((a) => ({ p, a })));
    if (added.length > 0) {
      await this.uow.query(
        `INSERT INTO payment_applications (${APPLICATION_COLUMNS})
         SELECT u.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::timestamptz[], $8::timestamptz[]) AS u`,
        [
          added.map(({ p }) => p.tenantId),
          added.map(({ a }) => a.id),
          added.map(({ p }) => p.id),
          added.map(({ a }) => a.invoiceId),
          added.map(({ a }) => a.amount),
          added.map(({ a }) => a.source),
          added.map(({ a }) => a.appliedAt),
          added.map(({ a }) => a.reversedAt),
        ],
      );
    }
    for (const p of payments) {
      if (p.applicationChanges.reversed.length > 0) throw new Error(`payment ${p.id}: insertMany() takes new payments only`);
      p.markApplicationsSaved();
      this.uow.remember(identity(p.tenantId, p.id), p);
    }
  }

  async save(payment: Payment): Promise<void> {
    if (this.unwritten.delete(payment)) {
      // Saved while insert() waits on matching: the one write of the row, at the version an update would give it.
      payment.version += 1;
      await this.writeNew(payment);
      await this.afterWrite(payment);
      return;
    }
    const s = payment.toSnapshot();
    const params: unknown[] = [
      s.tenantId, s.id, s.customerId, payment.amountApplied.amount, payment.status, s.match.status, s.match.rule,
      JSON.stringify(s.match.suggestions), s.updatedAt, payment.version, s.customerSource, payment.amountRefunded.amount,
      PaymentMapper.writeOffsToJson(s.match.writeOffs),
    ];
    const update = `UPDATE payments SET customer_id = $3, amount_applied = $4, status = $5, match_status = $6, match_rule = $7,
                           match_suggestions = $8::jsonb, updated_at = $9, customer_source = $11, amount_refunded = $12,
                           match_write_offs = $13::jsonb, version = version + 1
        WHERE tenant_id = $1 AND id = $2 AND version = $10
        RETURNING version`;
    const added = payment.applicationChanges.added;
    // New applications go in the same statement as the payment row (one round trip): inserted only
    // if the version-checked update found the row. The figure checks look at both sides at commit.
    // A SELECT over the update, so the answer is the updated rows (a bare UPDATE answers [rows, count]).
    const insertAdded =
      added.length === 0
        ? ''
        : `, added AS (INSERT INTO payment_applications (${APPLICATION_COLUMNS})
                       SELECT v.* FROM (VALUES ${applicationTuples(payment, added, params)}) AS v (${APPLICATION_COLUMNS})
                        WHERE EXISTS (SELECT 1 FROM updated))`;
    const rows = await this.write(() => this.uow.query<{ version: number }>(`WITH updated AS (${update})${insertAdded} SELECT version FROM updated`, params));
    if (rows.length === 0) throw new ConflictError(`Payment ${s.id} was changed concurrently; retry the request.`);
    payment.version = rows[0].version;
    await this.afterWrite(payment);
  }

  private async write<T>(statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      throw currencyChanged(error) ?? error;
    }
  }

  /** After the row (and, on save, the new applications) is written: reversals, events, ledger. */
  private async afterWrite(payment: Payment): Promise<void> {
    // A payment is inserted before anything is applied, so new applications only come with save().
    for (const a of payment.applicationChanges.reversed) {
      await this.uow.query(
        `UPDATE payment_applications SET reversed_at = $3 WHERE tenant_id = $1 AND id = $2 AND reversed_at IS NULL`,
        [payment.tenantId, a.id, a.reversedAt],
      );
    }
    payment.markApplicationsSaved();
    // A refund needs a customer (the aggregate refuses one without), so customerId is set here.
    await insertRefunds(this.uow, payment.tenantId, { paymentId: payment.id }, payment.customerId!, payment.currency, payment.pullNewRefunds());
    await this.uow.publish(payment.pullEvents());
    for (const movement of payment.pullMovements()) {
      await this.ledger.post(paymentLedgerEntry(payment, movement));
    }
  }
}
