import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An import's counts while it is processed: one row per part (ADR 0046). Every part of a window
 * (ADR 0044) added its results to the import row, so each held that row locked from its counts to
 * its commit (the outbox statement and the WAL flush included) and the window's other stream,
 * done with its own part, waited for it there. A part now inserts its counts as a row of its own,
 * keyed by the first entry it recorded (each entry is recorded once); the resource shows the import
 * row plus its tallies, and the transaction that completes the import folds them into the row (the
 * row's CHECK then holds the totals, as before) and deletes them.
 */
export class BankStatementTallies1764940000100 implements MigrationInterface {
  name = 'BankStatementTallies1764940000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bank_statement_tallies (
        tenant_id text NOT NULL,
        statement_id text NOT NULL,
        first_position integer NOT NULL,
        entries_processed integer NOT NULL CHECK (entries_processed > 0),
        payments_created integer NOT NULL CHECK (payments_created >= 0),
        payments_existing integer NOT NULL CHECK (payments_existing >= 0),
        matched integer NOT NULL CHECK (matched >= 0),
        needs_review integer NOT NULL CHECK (needs_review >= 0),
        unmatched integer NOT NULL CHECK (unmatched >= 0),
        errors jsonb NOT NULL,
        PRIMARY KEY (tenant_id, statement_id, first_position),
        FOREIGN KEY (tenant_id, statement_id) REFERENCES bank_statements (tenant_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Imports still processing keep their counts: folded into their rows first.
    await q.query(`
      UPDATE bank_statements s
         SET entries_processed = s.entries_processed + t.entries_processed, payments_created = s.payments_created + t.payments_created,
             payments_existing = s.payments_existing + t.payments_existing, matched = s.matched + t.matched,
             needs_review = s.needs_review + t.needs_review, unmatched = s.unmatched + t.unmatched, errors = s.errors || t.errors
        FROM (SELECT x.tenant_id, x.statement_id, sum(x.entries_processed)::int AS entries_processed, sum(x.payments_created)::int AS payments_created,
                     sum(x.payments_existing)::int AS payments_existing, sum(x.matched)::int AS matched, sum(x.needs_review)::int AS needs_review,
                     sum(x.unmatched)::int AS unmatched,
                     coalesce((SELECT jsonb_agg(e.value ORDER BY y.first_position, e.n) FROM bank_statement_tallies y, jsonb_array_elements(y.errors) WITH ORDINALITY AS e (value, n)
                                WHERE y.tenant_id = x.tenant_id AND y.statement_id = x.statement_id), '[]'::jsonb) AS errors
                FROM bank_statement_tallies x GROUP BY x.tenant_id, x.statement_id) t
       WHERE s.tenant_id = t.tenant_id AND s.id = t.statement_id`);
    await q.query(`DROP TABLE bank_statement_tallies`);
  }
}
