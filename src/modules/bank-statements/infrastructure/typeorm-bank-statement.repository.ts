import { Injectable } from '@nestjs/common';
import { CUSTOMER_FIGURES_AT_COMMIT } from '../../customers';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { BankFileFormat } from '../domain/bank-entry';
import { BANK_STATEMENT_COMPLETED, BankEntryProblem, BankStatementJson, ImportedMatchStatus } from '../domain/bank-statement';
import { BankStatementRepository, ProcessedCredit, StagedCredit } from '../domain/bank-statement.repository';
import { BANK_STATEMENT_COLUMNS, BankStatementRow, presentBankStatement, TALLIES_FOLDED, TALLIES_OF } from './bank-statement.sql';

interface EntryRow {
  position: number;
  account: string;
  entry_key: string;
  bank_entry_id: string | null;
  amount: string;
  currency: string;
  booking_date: string;
  method: StagedCredit['method'];
  payer_name: string | null;
  payer_account: string | null;
  payer_bank_id: string | null;
  reference: string | null;
  remittance: { invoice_number: string; amount: number | null }[];
}

/** An UPDATE … RETURNING answers `[rows, count]` through the unit of work (TypeORM's shape). */
async function returned<T>(result: Promise<unknown>): Promise<T[]> {
  const [rows] = (await result) as [T[], number];
  return rows;
}

/**
 * Imports in PostgreSQL. Every statement that takes many rows passes them as arrays
 * (`unnest`), so its text is the same whatever the count: one prepared statement each.
 */
@Injectable()
export class TypeormBankStatementRepository extends BankStatementRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async create(input: { tenantId: string; id: string; format: BankFileFormat; createdAt: Date }): Promise<void> {
    await this.uow.query(
      `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, created_at) VALUES ($1, $2, $3, 'processing', 0, $4)`,
      [input.tenantId, input.id, input.format, input.createdAt],
    );
  }

  async stage(tenantId: string, statementId: string, credits: readonly StagedCredit[]): Promise<void> {
    if (credits.length === 0) return;
    const column = <T>(pick: (c: StagedCredit) => T) => credits.map(pick);
    await this.uow.query(
      `INSERT INTO bank_statement_entries (tenant_id, statement_id, position, account, entry_key, bank_entry_id, amount, currency,
                                           booking_date, method, payer_name, payer_account, payer_bank_id, reference, remittance)
       SELECT $1, $2, u.* FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::date[], $10::text[],
                                      $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[]) AS u`,
      [
        tenantId,
        statementId,
        column((c) => c.position),
        column((c) => c.account),
        column((c) => c.key),
        column((c) => c.bankEntryId),
        column((c) => c.amount),
        column((c) => c.currency),
        column((c) => c.bookingDate),
        column((c) => c.method ?? 'other'),
        column((c) => c.payer.name),
        column((c) => c.payer.account),
        column((c) => c.payer.bankId),
        column((c) => c.reference),
        column((c) => JSON.stringify(c.remittance.map((r) => ({ invoice_number: r.invoiceNumber, amount: r.amount })))),
      ],
    );
  }

  async finishStaging(tenantId: string, id: string, tally: { total: number; skipped: number; errors: BankEntryProblem[] }): Promise<BankStatementJson> {
    const [row] = await returned<BankStatementRow>(
      this.uow.query(
      `UPDATE bank_statements s SET entries_total = $3, entries_skipped = $4, errors = $5::jsonb, entries_processed = $4 + jsonb_array_length($5::jsonb)
        WHERE s.tenant_id = $1 AND s.id = $2
       RETURNING ${BANK_STATEMENT_COLUMNS}`,
      [tenantId, id, tally.total, tally.skipped, JSON.stringify(tally.errors)],
      ),
    );
    return presentBankStatement(row);
  }

  async claimNext(owner: string, leaseSeconds: number): Promise<{ tenantId: string; id: string } | null> {
    const [row] = await returned<{ tenant_id: string; id: string }>(
      this.uow.query(
      `UPDATE bank_statements s SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
        WHERE (s.tenant_id, s.id) = (SELECT tenant_id, id FROM bank_statements
                                      WHERE status = 'processing' AND (lease_until IS NULL OR lease_until < now())
                                      ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING s.tenant_id, s.id`,
      [owner, leaseSeconds],
      ),
    );
    return row ? { tenantId: row.tenant_id, id: row.id } : null;
  }

  async renewLease(tenantId: string, id: string, owner: string, leaseSeconds: number, alone = false): Promise<boolean> {
    if (alone) {
      // The window's serial prefix (ADR 0046): without waiting for the WAL flush (~3.5 ms here) at its
      // commit, with the transaction's setting in the same statement (no round trip of its own).
      const rows = await this.uow.query(
        `WITH setting AS (SELECT set_config('synchronous_commit', 'off', true) AS value),
              renewed AS (UPDATE bank_statements SET lease_until = now() + make_interval(secs => $4)
                           WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'processing'
                          RETURNING id)
         SELECT r.id FROM setting CROSS JOIN renewed r`,
        [tenantId, id, owner, leaseSeconds],
      );
      return rows.length > 0;
    }
    const rows = await returned(
      this.uow.query(
      `UPDATE bank_statements SET lease_until = now() + make_interval(secs => $4)
        WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'processing'
       RETURNING id, ${CUSTOMER_FIGURES_AT_COMMIT}`,
      [tenantId, id, owner, leaseSeconds],
      ),
    );
    return rows.length > 0;
  }

  async holdLease(tenantId: string, id: string, owner: string): Promise<boolean> {
    const rows = await this.uow.query(
      `SELECT id, ${CUSTOMER_FIGURES_AT_COMMIT} FROM bank_statements WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'processing' FOR KEY SHARE`,
      [tenantId, id, owner],
    );
    return rows.length > 0;
  }

  async release(tenantId: string, id: string, owner: string): Promise<void> {
    await this.uow.query(`UPDATE bank_statements SET lease_until = NULL WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3`, [tenantId, id, owner]);
  }

  async pending(tenantId: string, statementId: string, limit: number, positions?: readonly number[], from = 0): Promise<StagedCredit[]> {
    // By the primary key, from `from` on (no index by status: the entries' one update stays HOT, ADR 0046).
    const rows = await this.uow.query<EntryRow>(
      `SELECT position, account, entry_key, bank_entry_id, amount, currency, to_char(booking_date, 'YYYY-MM-DD') AS booking_date, method,
              payer_name, payer_account, payer_bank_id, reference, remittance
         FROM bank_statement_entries
        WHERE tenant_id = $1 AND statement_id = $2 AND status = 'pending' AND ${positions ? 'position = ANY($4::int[])' : 'position >= $4'}
        ORDER BY position LIMIT $3`,
      [tenantId, statementId, limit, positions ?? from],
    );
    return rows.map((r) => ({
      position: r.position,
      account: r.account,
      key: r.entry_key,
      bankEntryId: r.bank_entry_id,
      amount: toSafeNumber(r.amount),
      currency: r.currency,
      bookingDate: r.booking_date,
      method: r.method,
      payer: { name: r.payer_name, account: r.payer_account, bankId: r.payer_bank_id },
      reference: r.reference,
      remittance: r.remittance.map((l) => ({ invoiceNumber: l.invoice_number, amount: l.amount })),
    }));
  }

  async claimIdentities(tenantId: string, statementId: string, credits: readonly StagedCredit[]): Promise<Set<number>> {
    if (credits.length === 0) return new Set();
    const rows = await this.uow.query<{ position: number }>(
      `INSERT INTO bank_entry_keys (tenant_id, account, entry_key, statement_id, position)
       SELECT $1, u.account, u.entry_key, $2, u.position FROM unnest($3::text[], $4::text[], $5::int[]) AS u (account, entry_key, position)
       ON CONFLICT DO NOTHING
       RETURNING position`,
      [tenantId, statementId, credits.map((c) => c.account), credits.map((c) => c.key), credits.map((c) => c.position)],
    );
    return new Set(rows.map((r) => r.position));
  }

  async matchStatuses(tenantId: string, paymentIds: readonly string[]): Promise<Map<string, ImportedMatchStatus>> {
    if (paymentIds.length === 0) return new Map();
    const rows = await this.uow.query<{ id: string; match_status: ImportedMatchStatus }>(
      `SELECT id, match_status FROM payments WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, paymentIds],
    );
    return new Map(rows.map((r) => [r.id, r.match_status]));
  }

  async recordProcessed(tenantId: string, statementId: string, processed: readonly ProcessedCredit[]): Promise<void> {
    if (processed.length === 0) return;
    const count = (status: ImportedMatchStatus | 'matched_or_partial') =>
      processed.filter((p) => (status === 'matched_or_partial' ? p.matchStatus === 'matched' || p.matchStatus === 'partial' : p.matchStatus === status)).length;
    const created = processed.filter((p) => p.paymentId !== null);
    const rejected = processed.flatMap((p) => (p.error ? [p.error] : []));
    // The part's counts go to a row of its own (bank_statement_tallies, ADR 0046), not to the
    // import row: the window's other stream never waits for this transaction to commit.
    await this.uow.query(
      `WITH done AS (
         UPDATE bank_statement_entries e
            SET status = CASE WHEN u.payment_id IS NOT NULL THEN 'created' WHEN u.rejected THEN 'rejected' ELSE 'existing' END, payment_id = u.payment_id
           FROM unnest($3::int[], $4::text[], $11::boolean[]) AS u (position, payment_id, rejected)
          WHERE e.tenant_id = $1 AND e.statement_id = $2 AND e.position = ANY($3::int[]) AND e.position = u.position AND e.status = 'pending'
         RETURNING e.position)
       -- The entry holds its payment; its identity key (claimed in this transaction) is not written
       -- again (ADR 0046). Keyed by the first entry recorded here: each entry is recorded once.
       INSERT INTO bank_statement_tallies (tenant_id, statement_id, first_position, entries_processed, payments_created, payments_existing,
                                           matched, needs_review, unmatched, errors)
       SELECT $1, $2, min(d.position), count(*), $5, $6, $7, $8, $9, $10::jsonb FROM done d HAVING count(*) > 0`,
      [
        tenantId,
        statementId,
        processed.map((p) => p.position),
        processed.map((p) => p.paymentId),
        created.length,
        processed.length - created.length - rejected.length,
        count('matched_or_partial'),
        count('needs_review'),
        count('unmatched'),
        JSON.stringify(rejected),
        processed.map((p) => p.error !== undefined),
      ],
    );
  }

  async complete(tenantId: string, id: string, at: Date): Promise<BankStatementJson | null> {
    // The parts' tallies folded into the import row (whose CHECK then holds the totals) and deleted.
    const [row] = await this.uow.query<BankStatementRow>(
      `WITH completed AS (
         UPDATE bank_statements s SET status = 'completed', completed_at = $3, lease_owner = NULL, lease_until = NULL, ${TALLIES_FOLDED}
           FROM ${TALLIES_OF('$1', '$2')} t
          WHERE s.tenant_id = $1 AND s.id = $2 AND s.status = 'processing'
            AND NOT EXISTS (SELECT 1 FROM bank_statement_entries e WHERE e.tenant_id = $1 AND e.statement_id = $2 AND e.status = 'pending')
         RETURNING ${BANK_STATEMENT_COLUMNS}),
       folded AS (DELETE FROM bank_statement_tallies x WHERE x.tenant_id = $1 AND x.statement_id = $2 AND EXISTS (SELECT 1 FROM completed))
       SELECT * FROM completed`,
      [tenantId, id, at],
    );
    if (!row) return null;
    const json = presentBankStatement(row);
    await this.uow.publish([
      {
        type: BANK_STATEMENT_COMPLETED,
        aggregateType: 'bank_statement',
        aggregateId: id,
        tenantId,
        occurredAt: at,
        data: { object: json as unknown as Record<string, unknown> },
      },
    ]);
    return json;
  }
}
