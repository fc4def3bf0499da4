import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { openStatusSql } from '../../../shared/infrastructure/query/receivable.sql';
import { LedgerWriter } from '../../customers';
import { Invoice } from '../domain/invoice.aggregate';
import { InvoiceRepository, OpenInvoiceQuery } from '../domain/invoice.repository';
import { InvoiceSnapshot } from '../domain/invoice.snapshot';
import { invoiceLedgerEntry } from '../domain/receivable-movement';
import { INVOICE_COLUMNS, INVOICE_FROM, INVOICE_SELECT, InvoiceMapper, InvoiceRow } from './invoice.mapper';

/** Columns an update may change (tenant, id and created_at never change). */
const UPDATABLE = INVOICE_COLUMNS.filter((c) => c !== 'tenant_id' && c !== 'id' && c !== 'created_at');
/** What applying a payment or writing off a short pay changes on an invoice (saveSettlements). */
const SETTLEMENT_COLUMNS = new Set<string>(['status', 'amount_paid', 'amount_written_off', 'paid_at', 'paid_on', 'version', 'updated_at']);
const UNCOMPARED = new Set<string>(['line_items', 'metadata']);
const sameValue = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b);

/** The error an invoice's insert or update answers for a key it broke (undefined: not one of these). */
function invoiceWriteFailure(error: unknown, s: InvoiceSnapshot): Error | undefined {
  const constraint = (error as { constraint?: string }).constraint;
  if (constraint === 'invoices_number_key') return new ConflictError(`An invoice numbered ${s.number} already exists.`);
  // The customer's currency changed after it was read (the key checks it under the customer's lock).
  if (constraint === 'invoices_customer_currency_fkey') {
    return new ConflictError(`The currency of customer ${s.customerId} is no longer ${s.currency}: it changed while this request ran; retry.`);
  }
  return undefined;
}

/**
 * Raw SQL on the unit of work's transaction. `FOR UPDATE OF i` locks the invoice row only
 * (not its customer); several rows are locked in id order so concurrent lockers queue
 * instead of deadlocking.
 */
@Injectable()
export class TypeormInvoiceRepository extends InvoiceRepository {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly ledger: LedgerWriter,
  ) {
    super();
  }

  async findById(tenantId: string, id: string): Promise<Invoice | null> {
    const [invoice] = await this.load(`i.tenant_id = $1 AND i.id = $2`, [tenantId, id]);
    return invoice ?? null;
  }

  findByIds(tenantId: string, ids: readonly string[]): Promise<Invoice[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.load(`i.tenant_id = $1 AND i.id = ANY($2::text[])`, [tenantId, [...new Set(ids)]], 'ORDER BY i.id');
  }

  async findByIdForUpdate(tenantId: string, id: string): Promise<Invoice | null> {
    const [invoice] = await this.load(`i.tenant_id = $1 AND i.id = $2`, [tenantId, id], 'FOR UPDATE OF i');
    return invoice ?? null;
  }

  findByIdsForUpdate(tenantId: string, ids: readonly string[]): Promise<Invoice[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // One invoice (most payments): the statement of findByIdForUpdate, whose generic plan the
    // prepared statement settles on. With `= ANY($2)` PostgreSQL costs the generic plan for ten
    // ids and so plans every execution afresh, which cost more than running it.
    if (new Set(ids).size === 1) return this.load(`i.tenant_id = $1 AND i.id = $2`, [tenantId, ids[0]], 'FOR UPDATE OF i');
    return this.load(`i.tenant_id = $1 AND i.id = ANY($2::text[])`, [tenantId, [...new Set(ids)]], 'ORDER BY i.id FOR UPDATE OF i');
  }

  findOpenForCustomer(tenantId: string, customerId: string, currency: string, query: OpenInvoiceQuery): Promise<Invoice[]> {
    // Served by invoices_open_idx (tenant_id, customer_id, currency, due_date, id).
    const lock = query.forUpdate ? ' FOR UPDATE OF i' : '';
    return this.load(
      `i.tenant_id = $1 AND i.customer_id = $2 AND i.currency = $3 AND ${openStatusSql('i.')}`,
      [tenantId, customerId, currency.toLowerCase(), query.limit],
      `ORDER BY i.due_date, i.id LIMIT $4${lock}`,
    );
  }

  findByNumbers(tenantId: string, numbers: readonly string[]): Promise<Invoice[]> {
    if (numbers.length === 0) return Promise.resolve([]);
    return this.load(`i.tenant_id = $1 AND lower(i.number) = ANY($2::text[])`, [tenantId, [...new Set(numbers.map((n) => n.toLowerCase()))]], 'ORDER BY i.id');
  }

  async save(invoice: Invoice): Promise<void> {
    const s = invoice.toSnapshot();
    if (!invoice.isNew && s.version === invoice.expectedVersion) return; // nothing changed
    const values = InvoiceMapper.toValues(s);
    if (invoice.isNew) {
      try {
        await this.uow.query(
          `INSERT INTO invoices (${INVOICE_COLUMNS.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
          values,
        );
      } catch (error) {
        throw invoiceWriteFailure(error, s) ?? error;
      }
    } else {
      const byColumn = new Map(INVOICE_COLUMNS.map((c, i) => [c as string, values[i]]));
      const params: unknown[] = [s.tenantId, s.id, invoice.expectedVersion];
      const sets = UPDATABLE.map((c) => {
        params.push(byColumn.get(c));
        return `${c} = $${params.length}`;
      });
      // The row is this transaction's (locked, version-checked): the update is held back and goes
      // out with the transaction's next statement or its commit (UnitOfWork.writeBehind).
      await this.uow.writeBehind(
        {
          sql: `UPDATE invoices SET ${sets.join(', ')} WHERE tenant_id = $1 AND id = $2 AND version = $3 RETURNING id`,
          params,
          written: (rows) => {
            if (rows === 0) throw new ConflictError(`Invoice ${s.number} was changed concurrently; retry.`);
          },
          failed: (error) => invoiceWriteFailure(error, s),
        },
        `invoice:${s.tenantId}:${s.id}`,
      );
    }
    invoice.markPersisted();
    const writeOffs = invoice.pullWriteOffs();
    if (writeOffs.length > 0) {
      // The figure guard checks at commit that amount_written_off is the sum of these rows (new rows: held back too).
      await this.uow.writeBehind({
        sql: `INSERT INTO invoice_write_offs (tenant_id, id, invoice_id, amount, reason, created_at)
         SELECT $1, w.id, $2, w.amount, w.reason, w.created_at
           FROM unnest($3::text[], $4::bigint[], $5::text[], $6::timestamptz[]) AS w (id, amount, reason, created_at)`,
        params: [s.tenantId, s.id, writeOffs.map((w) => w.id), writeOffs.map((w) => w.amount), writeOffs.map((w) => w.reason), writeOffs.map((w) => w.createdAt)],
      });
    }
    for (const m of invoice.pullMovements()) {
      await this.ledger.post(invoiceLedgerEntry(s, m));
    }
    await this.uow.publish(invoice.pullEvents());
  }

  async saveSettlements(changes: readonly { invoice: Invoice; original: InvoiceSnapshot }[]): Promise<void> {
    // The aggregate's version is its snapshot's: no copy of every invoice (and its lines) to read it.
    const changed = changes.filter(({ invoice, original }) => invoice.version !== original.version);
    if (changed.length === 0) return;
    const rows = changed.map(({ invoice, original }) => {
      const s = invoice.toScalarSnapshot(); // (its lines and metadata are neither compared nor written)
      // Scalars only: line_items and metadata (UNCOMPARED) are not written out as JSON.
      const before = InvoiceMapper.toValues(original, false);
      const after = InvoiceMapper.toValues(s, false);
      // Scalars compared (a settlement never replaces lines or metadata; stringifying them cost more than the rest of the save).
      const other = INVOICE_COLUMNS.filter((c, i) => !SETTLEMENT_COLUMNS.has(c) && !UNCOMPARED.has(c) && !sameValue(before[i], after[i]));
      if (other.length > 0) throw new Error(`invoice ${s.id}: saveSettlements() writes settlements only, not ${other.join(', ')}`);
      return { s, expected: original.version };
    });
    const column = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
    const [updated] = (await this.uow.query(
      `UPDATE invoices i SET status = u.status, amount_paid = u.amount_paid, amount_written_off = u.amount_written_off, paid_at = u.paid_at,
              paid_on = u.paid_on, version = u.version, updated_at = u.updated_at
         FROM unnest($2::text[], $3::int[], $4::text[], $5::bigint[], $6::bigint[], $7::timestamptz[], $8::date[], $9::int[], $10::timestamptz[])
              AS u (id, expected, status, amount_paid, amount_written_off, paid_at, paid_on, version, updated_at)
        WHERE i.tenant_id = $1 AND i.id = u.id AND i.version = u.expected
       RETURNING i.id`,
      [
        rows[0].s.tenantId,
        column((r) => r.s.id),
        column((r) => r.expected),
        column((r) => r.s.status),
        column((r) => r.s.amountPaid),
        column((r) => r.s.amountWrittenOff),
        column((r) => r.s.paidAt),
        column((r) => r.s.paidOn),
        column((r) => r.s.version),
        column((r) => r.s.updatedAt),
      ],
    )) as unknown as [unknown[], number];
    if (updated.length !== rows.length) throw new ConflictError(`An invoice was changed concurrently; retry.`);
    const writeOffs = changed.flatMap(({ invoice }) => invoice.pullWriteOffs().map((w) => ({ invoiceId: invoice.id, w })));
    if (writeOffs.length > 0) {
      await this.uow.query(
        `INSERT INTO invoice_write_offs (tenant_id, id, invoice_id, amount, reason, created_at)
         SELECT $1, w.id, w.invoice_id, w.amount, w.reason, w.created_at
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::timestamptz[]) AS w (id, invoice_id, amount, reason, created_at)`,
        [
          rows[0].s.tenantId,
          writeOffs.map(({ w }) => w.id),
          writeOffs.map(({ invoiceId }) => invoiceId),
          writeOffs.map(({ w }) => w.amount),
          writeOffs.map(({ w }) => w.reason),
          writeOffs.map(({ w }) => w.createdAt),
        ],
      );
    }
    for (const { invoice } of changed) invoice.markPersisted();
  }

  private async load(where: string, params: unknown[], tail = ''): Promise<Invoice[]> {
    const rows = await this.uow.query<InvoiceRow>(`SELECT ${INVOICE_SELECT} FROM ${INVOICE_FROM} WHERE ${where} ${tail}`, params);
    return rows.map((r) => InvoiceMapper.toDomain(r));
  }
}
