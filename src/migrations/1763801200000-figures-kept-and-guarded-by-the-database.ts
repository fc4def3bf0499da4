import { MigrationInterface, QueryRunner } from 'typeorm';
import { overdueAsOfSelectSql } from '../modules/customers/infrastructure/customer-figures.sql';
import { openInvoiceSql, openStatusSql } from '../shared/infrastructure/query/receivable.sql';

/**
 * One mechanism for the customers' stored figures, and guards on every row that holds a figure
 * (ADR 17, issue 13 findings 1 and 8).
 *
 * Stored figures, all kept by triggers from the rows they summarise:
 * - `balance` = Σ ledger entries (a trigger on ledger_entries; the application only inserts entries);
 * - `overdue_amount` = the open amount due before `overdue_as_of`, moved by the invoices trigger
 *   with each invoice's contribution; `overdue_refresh_on` is the first day those figures may be
 *   stale (the day after the earliest open due date on or after `overdue_as_of`, or earlier).
 *   The calendar moves `overdue_as_of`: setting it (a scheduled job does, per tenant's today)
 *   recounts the two figures in the same row update. A new customer starts at -infinity (no
 *   invoice is overdue before then), so no "today" is needed when it is inserted;
 * - the ar_summary history figures (migration 1763800400000), as before.
 * A guard refuses any other write of these columns: a statement that sets them directly (not
 * from a trigger) fails, unless the transaction announced a recount (RECOUNT_FIGURES_SQL).
 *
 * Guards, checked at commit (deferred constraint triggers), for every row whose figures or
 * whose sources changed: invoices.amount_paid and payments.amount_applied equal the sum of
 * their active applications. `check_invoice_figures` / `check_payment_figures` hold the rule
 * for one row; each source table calls them for the rows it touches, and each figure row calls
 * them when one of its figure columns changes. A new kind of figure (credited, written off,
 * refunded) joins by extending the check function and adding a trigger on its source table.
 *
 * The rules' SQL is generated from `shared/domain/receivable.ts` and the customers module's
 * figure SQL, so this migration, the readers and the recount cannot disagree about "open"
 * (test/e2e/customers/figures.e2e-spec.ts compares the installed functions with them).
 */
/** The rows that hold a figure of applications: that figure equals the sum of their active applications. */
const FIGURE_ROWS = [
  { owner: 'invoice', table: 'invoices', column: 'amount_paid' },
  { owner: 'payment', table: 'payments', column: 'amount_applied' },
] as const;

export class FiguresKeptAndGuardedByTheDatabase1763801200000 implements MigrationInterface {
  name = 'FiguresKeptAndGuardedByTheDatabase1763801200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE customers
        ADD COLUMN overdue_as_of date NOT NULL DEFAULT '-infinity',
        DROP COLUMN overdue_invoice_count`);
    // Readers check that a tenant's stored overdue figures hold for its today: none stale, none ahead.
    await q.query(`CREATE INDEX customers_overdue_as_of_idx ON customers (tenant_id, overdue_as_of)`);
    // Open invoices per customer, now read by their amount due (the rule's own column: with credit
    // notes and write-offs it is more than total − amount_paid), so aging stays an index-only scan.
    await q.query(`DROP INDEX invoices_open_idx`);
    await q.query(`
      CREATE INDEX invoices_open_idx ON invoices (tenant_id, customer_id, currency, due_date, id)
        INCLUDE (amount_due) WHERE ${openStatusSql('')}`);

    // ---- balance: Σ ledger -------------------------------------------------------------------
    await q.query(`
      CREATE FUNCTION ledger_entries_customer_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'DELETE' THEN
          UPDATE customers SET balance = balance + NEW.debit - NEW.credit WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          UPDATE customers SET balance = balance - OLD.debit + OLD.credit WHERE tenant_id = OLD.tenant_id AND id = OLD.customer_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER ledger_entries_customer_balance
        AFTER INSERT OR DELETE OR UPDATE OF tenant_id, customer_id, debit, credit ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_customer_balance()`);

    // ---- invoices: history figures and overdue, one customer update per change -------------------
    // Moves a customer's invoice figures by one invoice's change: the history deltas, and its open
    // amount due before (o_open, due o_due) and after (n_open, due n_due), each counted overdue when
    // due before the row's overdue_as_of (read from the row version being updated, so a concurrent
    // change of overdue_as_of is taken into account).
    await q.query(`
      CREATE FUNCTION customer_invoice_figures_move(t text, customer text, d_invoiced bigint, d_paid integer, d_days bigint,
                                                    o_open bigint, o_due date, n_open bigint, n_due date) RETURNS void LANGUAGE sql AS $$
        UPDATE customers c
           SET total_invoiced = c.total_invoiced + d_invoiced,
               paid_invoice_count = c.paid_invoice_count + d_paid,
               paid_days_sum = c.paid_days_sum + d_days,
               overdue_amount = c.overdue_amount + CASE WHEN n_due < c.overdue_as_of THEN n_open ELSE 0 END
                                                 - CASE WHEN o_due < c.overdue_as_of THEN o_open ELSE 0 END,
               overdue_refresh_on = CASE WHEN n_open > 0 AND n_due >= c.overdue_as_of THEN LEAST(c.overdue_refresh_on, n_due + 1)
                                         ELSE c.overdue_refresh_on END
         WHERE c.tenant_id = t AND c.id = customer
      $$`);
    await q.query(`DROP TRIGGER invoices_customer_summary ON invoices`);
    await q.query(`DROP FUNCTION invoices_customer_summary()`);
    await q.query(`
      CREATE FUNCTION invoices_customer_figures() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        o_invoiced bigint := 0; o_paid integer := 0; o_days bigint := 0; o_open bigint := 0; o_due date;
        n_invoiced bigint := 0; n_paid integer := 0; n_days bigint := 0; n_open bigint := 0; n_due date;
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          IF OLD.finalized_at IS NOT NULL AND OLD.status <> 'void' THEN o_invoiced := OLD.total; END IF;
          IF OLD.status = 'paid' THEN o_paid := 1; o_days := OLD.paid_on - OLD.issue_date; END IF;
          IF ${openInvoiceSql('OLD.')} THEN o_open := OLD.amount_due; o_due := OLD.due_date; END IF;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          IF NEW.finalized_at IS NOT NULL AND NEW.status <> 'void' THEN n_invoiced := NEW.total; END IF;
          IF NEW.status = 'paid' THEN n_paid := 1; n_days := NEW.paid_on - NEW.issue_date; END IF;
          IF ${openInvoiceSql('NEW.')} THEN n_open := NEW.amount_due; n_due := NEW.due_date; END IF;
        END IF;
        IF TG_OP = 'UPDATE' AND (NEW.tenant_id, NEW.customer_id) = (OLD.tenant_id, OLD.customer_id) THEN
          IF (n_invoiced, n_paid, n_days, n_open, n_due) IS DISTINCT FROM (o_invoiced, o_paid, o_days, o_open, o_due) THEN
            PERFORM customer_invoice_figures_move(NEW.tenant_id, NEW.customer_id, n_invoiced - o_invoiced, n_paid - o_paid,
                                                  n_days - o_days, o_open, o_due, n_open, n_due);
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' AND (o_invoiced, o_paid, o_days, o_open) <> (0, 0, 0, 0) THEN
          PERFORM customer_invoice_figures_move(OLD.tenant_id, OLD.customer_id, -o_invoiced, -o_paid, -o_days, o_open, o_due, 0, NULL);
        END IF;
        IF TG_OP <> 'DELETE' AND (n_invoiced, n_paid, n_days, n_open) <> (0, 0, 0, 0) THEN
          PERFORM customer_invoice_figures_move(NEW.tenant_id, NEW.customer_id, n_invoiced, n_paid, n_days, 0, NULL, n_open, n_due);
        END IF;
        RETURN NULL;
      END $$`);
    // Not deferred: an invoice row is locked before its customer's everywhere (ADR 11).
    await q.query(`
      CREATE TRIGGER invoices_customer_figures
        AFTER INSERT OR UPDATE OR DELETE ON invoices
        FOR EACH ROW EXECUTE FUNCTION invoices_customer_figures()`);

    // ---- customers: figures only through triggers; the calendar moves overdue_as_of ------------------
    await q.query(`
      CREATE FUNCTION customers_figures_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Depth 1: this statement came from outside any trigger (the application, an operator).
        IF pg_trigger_depth() = 1 AND current_setting('receivables.recount', true) IS DISTINCT FROM 'on' THEN
          IF TG_OP = 'INSERT' THEN
            IF (NEW.balance, NEW.overdue_amount, NEW.total_invoiced, NEW.paid_invoice_count, NEW.paid_days_sum, NEW.total_paid) <> (0, 0, 0, 0, 0, 0)
               OR (NEW.overdue_refresh_on, NEW.last_payment_id, NEW.last_payment_date) IS DISTINCT FROM (NULL, NULL, NULL) THEN
              RAISE EXCEPTION 'customer %: a new customer''s figures start at zero', NEW.id
                USING ERRCODE = 'check_violation', CONSTRAINT = 'customer_figures';
            END IF;
          ELSIF (NEW.balance, NEW.overdue_amount, NEW.overdue_refresh_on, NEW.total_invoiced, NEW.paid_invoice_count,
                 NEW.paid_days_sum, NEW.total_paid, NEW.last_payment_id, NEW.last_payment_date)
                IS DISTINCT FROM (OLD.balance, OLD.overdue_amount, OLD.overdue_refresh_on, OLD.total_invoiced, OLD.paid_invoice_count,
                                  OLD.paid_days_sum, OLD.total_paid, OLD.last_payment_id, OLD.last_payment_date) THEN
            RAISE EXCEPTION 'customer %: its figures are kept by the database from the rows they sum, never written directly', NEW.id
              USING ERRCODE = 'check_violation', CONSTRAINT = 'customer_figures';
          END IF;
        END IF;
        IF TG_OP = 'UPDATE' AND NEW.overdue_as_of IS DISTINCT FROM OLD.overdue_as_of
           AND current_setting('receivables.recount', true) IS DISTINCT FROM 'on' THEN
          -- (A recount sets every figure itself.) Runs on the locked row: the invoices read here include every change committed by a
          -- transaction that held the row before; later ones queue behind it and move the new figures.
          SELECT ${overdueAsOfSelectSql('NEW')} INTO NEW.overdue_amount, NEW.overdue_refresh_on;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER customers_figures_guard
        BEFORE INSERT OR UPDATE ON customers
        FOR EACH ROW EXECUTE FUNCTION customers_figures_guard()`);

    // ---- guards: figure rows equal the sum of their sources, at commit ---------------------------
    await q.query(`DROP TRIGGER payment_applications_balance ON payment_applications`);
    await q.query(`DROP FUNCTION payment_applications_balance_check()`);
    for (const f of FIGURE_ROWS) {
      await q.query(`
        CREATE FUNCTION check_${f.owner}_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
          recorded bigint;
          applied bigint;
        BEGIN
          IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
          SELECT ${f.column} INTO recorded FROM ${f.table} WHERE tenant_id = t AND id = row_id;
          IF NOT FOUND THEN RETURN; END IF;
          SELECT COALESCE(SUM(amount), 0) INTO applied FROM payment_applications
           WHERE tenant_id = t AND ${f.owner}_id = row_id AND reversed_at IS NULL;
          IF applied <> recorded THEN
            RAISE EXCEPTION '${f.owner} %: ${f.column} is % but its applications sum to %', row_id, recorded, applied
              USING ERRCODE = 'check_violation', CONSTRAINT = '${f.owner}_figures';
          END IF;
        END $$`);
      await q.query(`
        CREATE FUNCTION ${f.table}_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM check_${f.owner}_figures(NEW.tenant_id, NEW.id);
          RETURN NULL;
        END $$`);
      // A constraint trigger's WHEN is evaluated when the row changes: an update that leaves the
      // figures alone queues no check.
      await q.query(`
        CREATE CONSTRAINT TRIGGER ${f.table}_figures_insert AFTER INSERT ON ${f.table} DEFERRABLE INITIALLY DEFERRED
          FOR EACH ROW WHEN (NEW.${f.column} <> 0) EXECUTE FUNCTION ${f.table}_figures_check()`);
      await q.query(`
        CREATE CONSTRAINT TRIGGER ${f.table}_figures_update AFTER UPDATE ON ${f.table} DEFERRABLE INITIALLY DEFERRED
          FOR EACH ROW WHEN ((NEW.tenant_id, NEW.id, NEW.${f.column}) IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.${f.column}))
          EXECUTE FUNCTION ${f.table}_figures_check()`);
    }
    await q.query(`
      CREATE FUNCTION payment_applications_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM check_payment_figures(NEW.tenant_id, NEW.payment_id);
        PERFORM check_invoice_figures(NEW.tenant_id, NEW.invoice_id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payment_applications_figures AFTER INSERT OR UPDATE ON payment_applications DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION payment_applications_figures_check()`);

    // Existing rows: overdue figures as of today (UTC; the scheduled job moves them per tenant).
    await q.query(`UPDATE customers SET overdue_as_of = (now() AT TIME ZONE 'UTC')::date`);
  }

  /** Irreversible: the replaced triggers kept figures the old way; restore a dump taken before it instead. */
  async down(): Promise<void> {
    throw new Error(`${this.name} cannot be reverted; restore a database dump taken before it`);
  }
}
