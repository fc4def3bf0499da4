import { MigrationInterface, QueryRunner } from 'typeorm';
import { openInvoiceSql } from '../shared/infrastructure/query/receivable.sql';
import { FigureMovesPlannedOnce1764700000300 } from './1764700000300-figure-moves-planned-once';

/**
 * Customers' figures moved once per transaction, at commit, when the transaction asks for it
 * (docs/adr/0045). A bank-import group and an auto-matched POST /payments write an entry's
 * customer three times (its invoices' statement, its payment's, its ledger lines'), each a new
 * row version through the customers' indexes.
 *
 * A transaction opts in with `set_config('receivables.customer_figures', 'at_commit', true)`
 * (CUSTOMER_FIGURES_AT_COMMIT in the customers module), sent in a statement it sends anyway. Then the statement
 * triggers of migration 1764700000300 sum each statement's moves per customer as before, but
 * append them to a session temp table (`pg_temp.customer_figure_moves`, ON COMMIT DELETE ROWS:
 * local buffers, no WAL, no index) instead of updating the customers. The first move of the
 * transaction also inserts a marker row, on which a deferred constraint trigger is queued: at
 * commit it takes every move out of the table, sums them per customer, locks the customers in
 * (tenant, id) order (after every invoice the transaction locked: ADR 11) and updates each once,
 * with the statement triggers' arithmetic (overdue counted against the locked row's
 * overdue_as_of). A transaction that moved figures this way cannot commit without that
 * update: the trigger is queued with the first move; the table cannot be dropped, truncated or
 * altered while it is pending (PostgreSQL refuses), and rows written or deleted there from
 * outside a trigger are refused. Whether the marker is pending is read from the table itself
 * (the trigger empties it), so moves after an early firing (SET CONSTRAINTS … IMMEDIATE) queue
 * it again, and no setting can stand in for it. Figures read inside such a transaction do not show its own moves:
 * only transactions that do not read them opt in. Without the setting nothing changes.
 * down() restores the functions of migration 1764700000300.
 */
export class CustomerFiguresMovedOncePerTransaction1764900000000 implements MigrationInterface {
  name = 'CustomerFiguresMovedOncePerTransaction1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION customer_figure_moves_refused() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'customer figure moves are written by the figure triggers only'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'customer_figures';
      END $$`);
    await q.query(applyFunctionSql());
    // Before each opted-in statement's moves: the session's table and its triggers (made once per
    // session), and the marker that queues the trigger (once per transaction, or again after it ran).
    await q.query(`
      CREATE FUNCTION customer_figure_moves_queue() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF to_regclass('pg_temp.customer_figure_moves') IS NULL THEN
          -- (Within an opted-in transaction the statement triggers look for the table only once the
          -- session says it made one; a table gone since, DISCARD TEMP, fails their insert: never silently.)
          CREATE TEMP TABLE customer_figure_moves (
            tenant_id text, customer_id text,
            invoiced bigint NOT NULL DEFAULT 0, paid integer NOT NULL DEFAULT 0, days bigint NOT NULL DEFAULT 0,
            opens bigint[], dues date[],
            balance bigint NOT NULL DEFAULT 0,
            total_paid bigint NOT NULL DEFAULT 0, last_payment_id text, last_payment_date date,
            written_off bigint NOT NULL DEFAULT 0,
            due boolean NOT NULL DEFAULT false
          );
          CREATE CONSTRAINT TRIGGER customer_figure_moves_apply AFTER INSERT ON pg_temp.customer_figure_moves
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.due) EXECUTE FUNCTION customer_figure_moves_apply();
          CREATE TRIGGER customer_figure_moves_guard BEFORE INSERT OR UPDATE OR DELETE ON pg_temp.customer_figure_moves
            FOR EACH STATEMENT WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION customer_figure_moves_refused();
        END IF;
        PERFORM set_config('receivables.customer_figure_moves', 'ready', false);
        IF NOT EXISTS (SELECT FROM pg_temp.customer_figure_moves WHERE due) THEN
          -- No marker: no move either (each comes after one), nothing pending. Rows deleted at each commit stay as dead
          -- tuples (a temp table is never vacuumed, and inserts do not reuse their pages): emptied past 32 pages.
          IF pg_relation_size('pg_temp.customer_figure_moves') > 32 * 8192 THEN
            TRUNCATE pg_temp.customer_figure_moves;
          END IF;
          INSERT INTO pg_temp.customer_figure_moves (due) VALUES (true);
        END IF;
      END $$`);
    await q.query(invoicesFunctionSql());
    await q.query(ledgerFunctionSql());
    await q.query(paymentsFunctionSql());
    await q.query(writtenOffFunctionSql());
  }

  async down(q: QueryRunner): Promise<void> {
    await new FigureMovesPlannedOnce1764700000300().up(q);
    await q.query(writtenOffFunctionSql(false));
    await q.query(`DROP FUNCTION customer_figure_moves_queue()`);
    await q.query(`DROP FUNCTION customer_figure_moves_apply()`);
    await q.query(`DROP FUNCTION customer_figure_moves_refused()`);
  }
}

/** The opted-in test, and the marker queued with the transaction's first move. */
const DEFERRING = `
        IF current_setting('receivables.customer_figures', true) = 'at_commit' THEN
          -- The marker: queued once until the trigger runs (it empties the table); read from the table, never from a setting.
          -- (Two tests: the table may not exist yet, and the second names it.)
          IF current_setting('receivables.customer_figure_moves', true) IS DISTINCT FROM 'ready' THEN
            PERFORM customer_figure_moves_queue();
          ELSIF NOT EXISTS (SELECT FROM pg_temp.customer_figure_moves WHERE due) THEN
            PERFORM customer_figure_moves_queue();
          END IF;`;

/** The customers of `m` (t, c) locked in (tenant, id) order: a CTE the update waits for (AFTER_LOCKING). */
const LOCKED = `locked AS (SELECT 1 FROM customers k JOIN m ON k.tenant_id = m.t AND k.id = m.c ORDER BY k.tenant_id, k.id FOR NO KEY UPDATE OF k)`;
/** A qual with no column: a one-time filter, evaluated (the locks taken) before the update reads any row. */
const AFTER_LOCKING = `(SELECT count(*) FROM locked) >= 0`;

/**
 * The deferred constraint trigger: every move of the transaction so far, summed per customer,
 * one update per customer in (tenant, id) order; one statement without parameters (planned
 * once per session).
 */
function applyFunctionSql(): string {
  return `
      CREATE FUNCTION customer_figure_moves_apply() RETURNS trigger LANGUAGE plpgsql
        -- The moves' table has no statistics: without these its plan joined a scan of every customer (1.5 ms per payment).
        SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
      BEGIN
        WITH d AS (DELETE FROM pg_temp.customer_figure_moves RETURNING *),
        m AS (SELECT d.tenant_id AS t, d.customer_id AS c, SUM(d.invoiced)::bigint AS invoiced, SUM(d.paid)::int AS paid,
                     SUM(d.days)::bigint AS days, SUM(d.balance)::bigint AS balance, SUM(d.total_paid)::bigint AS total_paid,
                     SUM(d.written_off)::bigint AS written_off,
                     (array_agg(d.last_payment_id ORDER BY d.last_payment_date DESC, d.last_payment_id DESC)
                        FILTER (WHERE d.last_payment_id IS NOT NULL))[1] AS last_id,
                     MAX(d.last_payment_date) AS last_date
                FROM d WHERE d.customer_id IS NOT NULL GROUP BY d.tenant_id, d.customer_id),
        o AS (SELECT d.tenant_id AS t, d.customer_id AS c, array_agg(x.open) AS opens, array_agg(x.due) AS dues
                FROM d CROSS JOIN LATERAL unnest(d.opens, d.dues) AS x (open, due) GROUP BY d.tenant_id, d.customer_id),
        mo AS (SELECT m.*, o.opens, o.dues FROM m LEFT JOIN o ON o.t = m.t AND o.c = m.c),
        -- Several customers: locked in (tenant, id) order first. One (a payment): its update locks it (a tuple lock less).
        locked AS (SELECT 1 FROM customers k JOIN m ON k.tenant_id = m.t AND k.id = m.c WHERE (SELECT count(*) FROM m) > 1
                    ORDER BY k.tenant_id, k.id FOR NO KEY UPDATE OF k)
        UPDATE customers c
           SET balance = c.balance + mo.balance,
               total_invoiced = c.total_invoiced + mo.invoiced,
               paid_invoice_count = c.paid_invoice_count + mo.paid,
               paid_days_sum = c.paid_days_sum + mo.days,
               overdue_amount = c.overdue_amount
                 + (SELECT COALESCE(SUM(CASE WHEN x.due < c.overdue_as_of THEN x.open ELSE 0 END), 0) FROM unnest(mo.opens, mo.dues) AS x (open, due)),
               overdue_refresh_on = LEAST(c.overdue_refresh_on,
                 (SELECT MIN(x.due) + 1 FROM unnest(mo.opens, mo.dues) AS x (open, due) WHERE x.open > 0 AND x.due >= c.overdue_as_of)),
               total_paid = c.total_paid + mo.total_paid,
               total_written_off = c.total_written_off + mo.written_off,
               last_payment_id = CASE WHEN mo.last_id IS NOT NULL AND (c.last_payment_id IS NULL OR (mo.last_date, mo.last_id) > (c.last_payment_date, c.last_payment_id))
                                      THEN mo.last_id ELSE c.last_payment_id END,
               last_payment_date = CASE WHEN mo.last_id IS NOT NULL AND (c.last_payment_id IS NULL OR (mo.last_date, mo.last_id) > (c.last_payment_date, c.last_payment_id))
                                        THEN mo.last_date ELSE c.last_payment_date END
          FROM mo WHERE c.tenant_id = mo.t AND c.id = mo.c AND ${AFTER_LOCKING};
        RETURN NULL;
      END $$`;
}

/** An invoice row's figures, as the row trigger computed them, for the row alias `r` (named `<as>invoiced` … when `as` is given). */
function figuresOf(r: string, as?: string): string {
  const name = (column: string) => (as === undefined ? '' : ` AS ${as}${column}`);
  return `CASE WHEN ${r}.finalized_at IS NOT NULL AND ${r}.status <> 'void' THEN ${r}.total ELSE 0 END::bigint${name('invoiced')},
          CASE WHEN ${r}.status = 'paid' THEN 1 ELSE 0 END${name('paid')},
          CASE WHEN ${r}.status = 'paid' THEN ${r}.paid_on - ${r}.issue_date ELSE 0 END::bigint${name('days')},
          CASE WHEN ${openInvoiceSql(`${r}.`)} THEN ${r}.amount_due ELSE 0 END::bigint${name('open')},
          CASE WHEN ${openInvoiceSql(`${r}.`)} THEN ${r}.due_date END${name('due')}`;
}
const FIGURE_COLUMNS = 'invoiced, paid, days, open, due';

/** Migration 1764700000300's invoices function, with the opted-in branch first. */
function invoicesFunctionSql(): string {
  const inserted = `SELECT n.tenant_id, n.customer_id, 1, ${figuresOf('n')} FROM new_rows n`;
  const deleted = `SELECT o.tenant_id, o.customer_id, -1, ${figuresOf('o')} FROM old_rows o`;
  const updated = `
            WITH p AS (
              SELECT o.tenant_id AS ot, o.customer_id AS oc, n.tenant_id AS nt, n.customer_id AS nc, ${figuresOf('o', 'o_')}, ${figuresOf('n', 'n_')}
                FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id),
            q AS (SELECT * FROM p WHERE (nt, nc) IS DISTINCT FROM (ot, oc)
                     OR (n_invoiced, n_paid, n_days, n_open, n_due) IS DISTINCT FROM (o_invoiced, o_paid, o_days, o_open, o_due))
            SELECT ot, oc, -1, o_invoiced, o_paid, o_days, o_open, o_due FROM q
            UNION ALL
            SELECT nt, nc, 1, n_invoiced, n_paid, n_days, n_open, n_due FROM q`;
  // A side that moves nothing (all zero: no open amount, hence no due date) is left out, as the row path leaves it.
  const defer = (s: string) => `
        WITH s (t, c, sign, ${FIGURE_COLUMNS}) AS (${s})
        INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, invoiced, paid, days, opens, dues)
        SELECT s.t, s.c, SUM(s.sign * s.invoiced), SUM(s.sign * s.paid), SUM(s.sign * s.days),
               array_agg(s.sign * s.open) FILTER (WHERE s.open > 0), array_agg(s.due) FILTER (WHERE s.open > 0)
          FROM s WHERE (s.invoiced, s.paid, s.days, s.open) <> (0, 0, 0, 0) GROUP BY s.t, s.c`;
  const move = (s: string) => `
        WITH s (t, c, sign, ${FIGURE_COLUMNS}) AS (${s}),
        m AS (SELECT s.t, s.c, SUM(s.sign * s.invoiced)::bigint AS invoiced, SUM(s.sign * s.paid)::int AS paid,
                     SUM(s.sign * s.days)::bigint AS days,
                     array_agg(s.sign * s.open) FILTER (WHERE s.open > 0) AS opens, array_agg(s.due) FILTER (WHERE s.open > 0) AS dues
                FROM s GROUP BY s.t, s.c),
        ${LOCKED}
        UPDATE customers c
           SET total_invoiced = c.total_invoiced + m.invoiced,
               paid_invoice_count = c.paid_invoice_count + m.paid,
               paid_days_sum = c.paid_days_sum + m.days,
               overdue_amount = c.overdue_amount
                 + (SELECT COALESCE(SUM(CASE WHEN x.due < c.overdue_as_of THEN x.open ELSE 0 END), 0) FROM unnest(m.opens, m.dues) AS x (open, due)),
               overdue_refresh_on = LEAST(c.overdue_refresh_on,
                 (SELECT MIN(x.due) + 1 FROM unnest(m.opens, m.dues) AS x (open, due) WHERE x.open > 0 AND x.due >= c.overdue_as_of))
          FROM m WHERE c.tenant_id = m.t AND c.id = m.c AND ${AFTER_LOCKING}`;
  return `
      CREATE OR REPLACE FUNCTION invoices_customer_figures_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_k bigint; v_ot text; v_oc text; v_nt text; v_nc text;
        v_o_invoiced bigint := 0; v_o_paid integer := 0; v_o_days bigint := 0; v_o_open bigint := 0; v_o_due date;
        v_n_invoiced bigint := 0; v_n_paid integer := 0; v_n_days bigint := 0; v_n_open bigint := 0; v_n_due date;
      BEGIN${DEFERRING}
          IF TG_OP = 'INSERT' THEN
            ${defer(inserted)};
          ELSIF TG_OP = 'DELETE' THEN
            ${defer(deleted)};
          ELSE
            ${defer(updated)};
          END IF;
          RETURN NULL;
        END IF;
        -- One row: the row trigger's logic and its one update (cheaper for one row than the set-wise statement).
        IF TG_OP = 'INSERT' THEN
          SELECT count(*) OVER (), n.tenant_id, n.customer_id, ${figuresOf('n')}
            INTO v_k, v_nt, v_nc, v_n_invoiced, v_n_paid, v_n_days, v_n_open, v_n_due FROM new_rows n LIMIT 1;
        ELSIF TG_OP = 'DELETE' THEN
          SELECT count(*) OVER (), o.tenant_id, o.customer_id, ${figuresOf('o')}
            INTO v_k, v_ot, v_oc, v_o_invoiced, v_o_paid, v_o_days, v_o_open, v_o_due FROM old_rows o LIMIT 1;
        ELSE
          SELECT count(*) OVER (), o.tenant_id, o.customer_id, ${figuresOf('o')}, n.tenant_id, n.customer_id, ${figuresOf('n')}
            INTO v_k, v_ot, v_oc, v_o_invoiced, v_o_paid, v_o_days, v_o_open, v_o_due, v_nt, v_nc, v_n_invoiced, v_n_paid, v_n_days, v_n_open, v_n_due
            FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id LIMIT 1;
        END IF;
        IF v_k IS NULL THEN RETURN NULL; END IF;
        IF v_k = 1 THEN
          IF TG_OP = 'UPDATE' AND (v_nt, v_nc) = (v_ot, v_oc) THEN
            IF (v_n_invoiced, v_n_paid, v_n_days, v_n_open, v_n_due) IS DISTINCT FROM (v_o_invoiced, v_o_paid, v_o_days, v_o_open, v_o_due) THEN
              PERFORM customer_invoice_figures_move(v_nt, v_nc, v_n_invoiced - v_o_invoiced, v_n_paid - v_o_paid, v_n_days - v_o_days, v_o_open, v_o_due, v_n_open, v_n_due);
            END IF;
            RETURN NULL;
          END IF;
          IF TG_OP <> 'INSERT' AND (v_o_invoiced, v_o_paid, v_o_days, v_o_open) <> (0, 0, 0, 0) THEN
            PERFORM customer_invoice_figures_move(v_ot, v_oc, -v_o_invoiced, -v_o_paid, -v_o_days, v_o_open, v_o_due, 0, NULL);
          END IF;
          IF TG_OP <> 'DELETE' AND (v_n_invoiced, v_n_paid, v_n_days, v_n_open) <> (0, 0, 0, 0) THEN
            PERFORM customer_invoice_figures_move(v_nt, v_nc, v_n_invoiced, v_n_paid, v_n_days, 0, NULL, v_n_open, v_n_due);
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP = 'INSERT' THEN
          ${move(inserted)};
        ELSIF TG_OP = 'DELETE' THEN
          ${move(deleted)};
        ELSE
          ${move(updated)};
        END IF;
        RETURN NULL;
      END $$`;
}

/** Migration 1764700000300's ledger function, with the opted-in branch first. */
function ledgerFunctionSql(): string {
  return `
      CREATE OR REPLACE FUNCTION ledger_entries_customer_balance_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_k bigint; v_t text; v_c text; v_d bigint;
      BEGIN${DEFERRING}
          INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, balance)
          SELECT tenant_id, customer_id, SUM(debit - credit) FROM new_rows GROUP BY tenant_id, customer_id;
          RETURN NULL;
        END IF;
        -- One row: the row trigger's update (a statement of its own is cheaper for one row than the set-wise one).
        SELECT count(*) OVER (), n.tenant_id, n.customer_id, n.debit - n.credit INTO v_k, v_t, v_c, v_d FROM new_rows n LIMIT 1;
        IF v_k IS NULL THEN RETURN NULL; END IF;
        IF v_k = 1 THEN
          UPDATE customers SET balance = balance + v_d WHERE tenant_id = v_t AND id = v_c;
          RETURN NULL;
        END IF;
        WITH m AS (SELECT tenant_id AS t, customer_id AS c, SUM(debit - credit)::bigint AS delta FROM new_rows GROUP BY tenant_id, customer_id),
        ${LOCKED}
        UPDATE customers c SET balance = c.balance + m.delta
          FROM m WHERE c.tenant_id = m.t AND c.id = m.c AND ${AFTER_LOCKING};
        RETURN NULL;
      END $$`;
}

/** Migration 1764700000300's payments function, with the opted-in branch first. */
function paymentsFunctionSql(): string {
  return `
      CREATE OR REPLACE FUNCTION payments_customer_summary_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_k bigint; v_t text; v_c text; v_amount bigint; v_id text; v_date date;
      BEGIN${DEFERRING}
          INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, total_paid, last_payment_id, last_payment_date)
          SELECT tenant_id, customer_id, SUM(amount), (array_agg(id ORDER BY payment_date DESC, id DESC))[1], MAX(payment_date)
            FROM new_rows WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id;
          RETURN NULL;
        END IF;
        SELECT count(*) OVER (), n.tenant_id, n.customer_id, n.amount, n.id, n.payment_date INTO v_k, v_t, v_c, v_amount, v_id, v_date FROM new_rows n LIMIT 1;
        IF v_k IS NULL THEN RETURN NULL; END IF;
        IF v_k = 1 THEN
          IF v_c IS NOT NULL THEN
            UPDATE customers cu
               SET total_paid = cu.total_paid + v_amount,
                   last_payment_id = CASE WHEN cu.last_payment_id IS NULL OR (v_date, v_id) > (cu.last_payment_date, cu.last_payment_id)
                                          THEN v_id ELSE cu.last_payment_id END,
                   last_payment_date = CASE WHEN cu.last_payment_id IS NULL OR (v_date, v_id) > (cu.last_payment_date, cu.last_payment_id)
                                            THEN v_date ELSE cu.last_payment_date END
             WHERE cu.tenant_id = v_t AND cu.id = v_c;
          END IF;
          RETURN NULL;
        END IF;
        WITH m AS (SELECT tenant_id AS t, customer_id AS c, SUM(amount)::bigint AS amount,
                          (array_agg(id ORDER BY payment_date DESC, id DESC))[1] AS last_id, MAX(payment_date) AS last_date
                     FROM new_rows WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id),
        ${LOCKED}
        UPDATE customers c
           SET total_paid = c.total_paid + m.amount,
               last_payment_id = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                      THEN m.last_id ELSE c.last_payment_id END,
               last_payment_date = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                        THEN m.last_date ELSE c.last_payment_date END
          FROM m WHERE c.tenant_id = m.t AND c.id = m.c AND ${AFTER_LOCKING};
        RETURN NULL;
      END $$`;
}

/**
 * Migration 1763801500000's row trigger of the customers' total_written_off (an invoice's
 * write-offs, and its amount due while uncollectible: a short pay of a bank import writes one
 * off), with the opted-in branch first; `deferring` false: as that migration left it.
 */
function writtenOffFunctionSql(deferring = true): string {
  return `
      CREATE OR REPLACE FUNCTION invoices_written_off_figure() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        o bigint := 0;
        n bigint := 0;
      BEGIN
        IF TG_OP <> 'INSERT' THEN o := OLD.amount_written_off + CASE WHEN OLD.status = 'uncollectible' THEN OLD.amount_due ELSE 0 END; END IF;
        IF TG_OP <> 'DELETE' THEN n := NEW.amount_written_off + CASE WHEN NEW.status = 'uncollectible' THEN NEW.amount_due ELSE 0 END; END IF;${
          deferring
            ? `${DEFERRING}
          IF TG_OP = 'UPDATE' AND (NEW.tenant_id, NEW.customer_id) = (OLD.tenant_id, OLD.customer_id) THEN
            IF n <> o THEN
              INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, written_off) VALUES (NEW.tenant_id, NEW.customer_id, n - o);
            END IF;
            RETURN NULL;
          END IF;
          IF o <> 0 THEN
            INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, written_off) VALUES (OLD.tenant_id, OLD.customer_id, -o);
          END IF;
          IF n <> 0 THEN
            INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, written_off) VALUES (NEW.tenant_id, NEW.customer_id, n);
          END IF;
          RETURN NULL;
        END IF;`
            : ''
        }
        IF TG_OP = 'UPDATE' AND (NEW.tenant_id, NEW.customer_id) = (OLD.tenant_id, OLD.customer_id) THEN
          IF n <> o THEN
            UPDATE customers SET total_written_off = total_written_off + n - o WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
          END IF;
          RETURN NULL;
        END IF;
        IF o <> 0 THEN
          UPDATE customers SET total_written_off = total_written_off - o WHERE tenant_id = OLD.tenant_id AND id = OLD.customer_id;
        END IF;
        IF n <> 0 THEN
          UPDATE customers SET total_written_off = total_written_off + n WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
        END IF;
        RETURN NULL;
      END $$`;
}
