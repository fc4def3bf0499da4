import { MigrationInterface, QueryRunner } from 'typeorm';
import { FigureChecksInTheTrigger1764700000200, invoiceCheckSql, paymentCheckSql } from './1764700000200-figure-checks-in-the-trigger';

/**
 * Each figure row checked once per transaction instead of twice (docs/adr/0049).
 *
 * An auto-matched payment (POST /payments, or an entry of a bank import part) queued four
 * commit-time checks for two rows: its invoice's (the invoice's own trigger, amount_paid moved,
 * and its application's) and its payment's (the payment's own trigger and its application's).
 * Both checks of a row ran at commit, one after the other, and read the same rows.
 *
 * Now a check is not queued for a row whose check is already queued and has not run yet: that
 * queued check runs later than this write, so it sees it. The rows with a check queued are kept
 * in transaction-local settings (`receivables.figure_checks_queued_0` … `_f`, by the first hex
 * digit of the row's md5; `receivables.figure_checks_queued` lists the digits in use), written by
 * the triggers' WHEN clauses when they queue (a constraint trigger's WHEN is evaluated when the
 * row is written, not when the check runs) and emptied by every check that runs, whether at
 * commit or earlier (SET CONSTRAINTS … IMMEDIATE): after a check has run, the next write of any
 * row queues again. Local settings follow savepoints as the queued checks do: a rolled-back
 * savepoint takes its queued checks and its additions with it, and a check that ran in it is run
 * again at commit, its emptying undone. An application's trigger is split in two (its payment's
 * check, keeping the trigger's name and place, and its invoice's) so that each half can stand aside
 * on its own. A row is named by a kind
 * letter (not a hex digit) and the md5 of its tenant and id (length-prefixed): entries of fixed
 * width, matched only whole. Past 4 kB in a bucket (about 2,000 rows queued between two checks)
 * rows are no longer added: they are checked as often as before. The checks themselves
 * (statements, comparisons, errors) are those of migration 1764700000200. down() restores its
 * triggers and functions.
 */
export class FigureChecksOncePerRow1765000100000 implements MigrationInterface {
  name = 'FigureChecksOncePerRow1765000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION figure_check_due(kind text, t text, row_id text) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        h text := md5(length(t) || ':' || t || row_id);
        k text := kind || h;
        bucket text := '${QUEUED}_' || left(h, 1);
        queued text := current_setting(bucket, true);
        buckets text;
      BEGIN
        IF strpos(queued, k) > 0 THEN
          RETURN false; -- a check of this row is queued and has not run: it will see this write
        END IF;
        -- (Assignments, not PERFORM: simple expressions, no SPI statement.)
        IF queued IS NULL OR queued = '' THEN
          buckets := current_setting('${QUEUED}', true);
          buckets := set_config('${QUEUED}', COALESCE(buckets, '') || left(h, 1), true);
        ELSIF octet_length(queued) >= ${BUCKET_MAX_LENGTH} THEN
          RETURN true; -- full: queued, and checked as often as before
        END IF;
        queued := set_config(bucket, COALESCE(queued, '') || k, true);
        RETURN true;
      END $$`);
    await q.query(triggerFunctionSql('payments_figures_check', paymentCheckSql('NEW.tenant_id', 'NEW.id')));
    await q.query(triggerFunctionSql('invoices_figures_check', invoiceCheckSql('NEW.tenant_id', 'NEW.id')));
    await q.query(triggerFunctionSql('invoice_write_offs_figures_check', invoiceCheckSql('NEW.tenant_id', 'NEW.invoice_id')));
    // The application's payment check keeps the trigger's name and its place (it ran first).
    await q.query(triggerFunctionSql('payment_applications_figures_check', paymentCheckSql('NEW.tenant_id', 'NEW.payment_id')));
    await q.query(triggerFunctionSql('payment_applications_invoice_figures_check', invoiceCheckSql('NEW.tenant_id', 'NEW.invoice_id')));

    for (const t of [...TRIGGERS].reverse()) await q.query(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
    for (const t of TRIGGERS) {
      const due = `figure_check_due('${t.kind}', NEW.tenant_id, NEW.${t.id})`;
      await q.query(triggerSql(t, t.when ? `(${t.when}) AND ${due}` : due));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of TRIGGERS) await q.query(`DROP TRIGGER ${t.name} ON ${t.table}`);
    await q.query(`DROP FUNCTION payment_applications_invoice_figures_check()`);
    // Restores the four check functions as that migration left them (the application's checking both rows again).
    await new FigureChecksInTheTrigger1764700000200().up(q);
    for (const t of TRIGGERS) if (t.name !== 'payment_applications_invoice_figures') await q.query(triggerSql(t, t.when));
    await q.query(`DROP FUNCTION figure_check_due(text, text, text)`);
  }
}

/**
 * The transaction-local settings naming the rows whose check is queued and has not run: `<QUEUED>_0`
 * … `<QUEUED>_f` hold the rows by the first hex digit of their md5 (a lookup reads a sixteenth of
 * them), `<QUEUED>` the digits of those not empty.
 */
const QUEUED = 'receivables.figure_checks_queued';
/** 4 kB: 124 rows a bucket, about 2,000 in all queued between two checks; beyond, rows are checked as before. */
const BUCKET_MAX_LENGTH = 4096;

interface FigureTrigger {
  name: string;
  table: string;
  events: string;
  /** The row's figures changed (migrations 1763801500000, 1763801520000); none: every write. */
  when?: string;
  /** i: an invoice's check, p: a payment's (letters that are not hex digits). */
  kind: 'i' | 'p';
  /** NEW's column naming the checked row. */
  id: string;
  fn: string;
}

const TRIGGERS: readonly FigureTrigger[] = [
  {
    name: 'invoices_figures_insert', table: 'invoices', events: 'INSERT', kind: 'i', id: 'id', fn: 'invoices_figures_check',
    when: 'NEW.amount_paid <> 0 OR NEW.amount_credited <> 0 OR NEW.amount_written_off <> 0',
  },
  {
    name: 'invoices_figures_update', table: 'invoices', events: 'UPDATE', kind: 'i', id: 'id', fn: 'invoices_figures_check',
    when: `(NEW.tenant_id, NEW.id, NEW.amount_paid, NEW.amount_credited, NEW.amount_written_off)
           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.amount_paid, OLD.amount_credited, OLD.amount_written_off)`,
  },
  {
    name: 'payments_figures_insert', table: 'payments', events: 'INSERT', kind: 'p', id: 'id', fn: 'payments_figures_check',
    when: 'NEW.amount_applied <> 0 OR NEW.amount_refunded <> 0',
  },
  {
    name: 'payments_figures_update', table: 'payments', events: 'UPDATE', kind: 'p', id: 'id', fn: 'payments_figures_check',
    when: `(NEW.tenant_id, NEW.id, NEW.amount_applied, NEW.amount_refunded)
           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.amount_applied, OLD.amount_refunded)`,
  },
  { name: 'invoice_write_offs_figures', table: 'invoice_write_offs', events: 'INSERT', kind: 'i', id: 'invoice_id', fn: 'invoice_write_offs_figures_check' },
  {
    name: 'payment_applications_figures', table: 'payment_applications', events: 'INSERT OR UPDATE', kind: 'p', id: 'payment_id',
    fn: 'payment_applications_figures_check',
  },
  {
    name: 'payment_applications_invoice_figures', table: 'payment_applications', events: 'INSERT OR UPDATE', kind: 'i', id: 'invoice_id',
    fn: 'payment_applications_invoice_figures_check',
  },
];

function triggerSql(t: FigureTrigger, when: string | undefined): string {
  return `
      CREATE CONSTRAINT TRIGGER ${t.name} AFTER ${t.events} ON ${t.table} DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW${when ? ` WHEN (${when})` : ''} EXECUTE FUNCTION ${t.fn}()`;
}

/** Migration 1764700000200's trigger function, emptying the queued rows first: once a check runs, the next write queues again. */
function triggerFunctionSql(name: string, checks: string): string {
  return `
      CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
        inv record;
        queued text;
        cleared text;
      BEGIN
        queued := current_setting('${QUEUED}', true);
        IF queued <> '' THEN
          FOR i IN 1..length(queued) LOOP
            cleared := set_config('${QUEUED}_' || substr(queued, i, 1), '', true);
          END LOOP;
          queued := set_config('${QUEUED}', '', true);
        END IF;
        IF current_setting('receivables.recount', true) IS DISTINCT FROM 'on' THEN${checks}
        END IF;
        RETURN NULL;
      END $$`;
}
