import { MigrationInterface, QueryRunner } from 'typeorm';
import { openInvoiceSql } from '../shared/infrastructure/query/receivable.sql';
import { invoicesCustomerFiguresRowsFunctionSql } from './1764700000000-customer-figures-moved-per-statement';

/**
 * The statement triggers of migrations 1764700000000 and 1764700000100 passed each statement's
 * moves from one SQL statement to the next in PL/pgSQL arrays: the `UPDATE customers` then had
 * parameters, and PostgreSQL planned it again at every call (a custom plan each time: 0.2-0.3 ms
 * of planning per POST /payments for each of the three). Each trigger is now one statement with
 * no parameter — the moves summed per customer from the transition table, the customers locked in
 * (tenant, id) order (a one-time filter, run before the update reads a row), the update — planned
 * once per session. Same arithmetic; the open amounts travel per customer as arrays. down()
 * restores the functions of those migrations.
 */
export class FigureMovesPlannedOnce1764700000300 implements MigrationInterface {
  name = 'FigureMovesPlannedOnce1764700000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(invoicesFunctionSql());
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger_entries_customer_balance_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_k bigint; v_t text; v_c text; v_d bigint;
      BEGIN
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
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION payments_customer_summary_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_k bigint; v_t text; v_c text; v_amount bigint; v_id text; v_date date;
      BEGIN
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
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The functions as migrations 1764700000000 and 1764700000100 left them.
    await q.query(invoicesCustomerFiguresRowsFunctionSql());
    await q.query(`
      CREATE OR REPLACE FUNCTION ledger_entries_customer_balance_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ts text[]; cs text[]; ds bigint[];
      BEGIN
        SELECT array_agg(tenant_id ORDER BY tenant_id, customer_id), array_agg(customer_id ORDER BY tenant_id, customer_id),
               array_agg(delta ORDER BY tenant_id, customer_id)
          INTO ts, cs, ds
          FROM (SELECT tenant_id, customer_id, SUM(debit - credit)::bigint AS delta FROM new_rows GROUP BY tenant_id, customer_id) m;
        IF ts IS NULL THEN RETURN NULL; END IF;
        IF cardinality(ts) > 1 THEN
          PERFORM 1 FROM customers c JOIN unnest(ts, cs) AS m (t, id) ON c.tenant_id = m.t AND c.id = m.id
            ORDER BY c.tenant_id, c.id FOR NO KEY UPDATE OF c;
        END IF;
        UPDATE customers c SET balance = c.balance + m.delta
          FROM unnest(ts, cs, ds) AS m (t, id, delta)
         WHERE c.tenant_id = m.t AND c.id = m.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION payments_customer_summary_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ts text[]; cs text[]; amounts bigint[]; last_ids text[]; last_dates date[];
      BEGIN
        SELECT array_agg(t ORDER BY t, c), array_agg(c ORDER BY t, c), array_agg(amount ORDER BY t, c),
               array_agg(last_id ORDER BY t, c), array_agg(last_date ORDER BY t, c)
          INTO ts, cs, amounts, last_ids, last_dates
          FROM (SELECT tenant_id AS t, customer_id AS c, SUM(amount)::bigint AS amount,
                       (array_agg(id ORDER BY payment_date DESC, id DESC))[1] AS last_id, MAX(payment_date) AS last_date
                  FROM new_rows WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id) m;
        IF ts IS NULL THEN RETURN NULL; END IF;
        IF cardinality(ts) > 1 THEN
          PERFORM 1 FROM customers c JOIN unnest(ts, cs) AS m (t, id) ON c.tenant_id = m.t AND c.id = m.id
            ORDER BY c.tenant_id, c.id FOR NO KEY UPDATE OF c;
        END IF;
        UPDATE customers c
           SET total_paid = c.total_paid + m.amount,
               last_payment_id = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                      THEN m.last_id ELSE c.last_payment_id END,
               last_payment_date = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                        THEN m.last_date ELSE c.last_payment_date END
          FROM unnest(ts, cs, amounts, last_ids, last_dates) AS m (t, id, amount, last_id, last_date)
         WHERE c.tenant_id = m.t AND c.id = m.id;
        RETURN NULL;
      END $$`);
  }
}

/** The customers of `m` (t, c) locked in (tenant, id) order: a CTE the update waits for (AFTER_LOCKING). */
const LOCKED = `locked AS (SELECT 1 FROM customers k JOIN m ON k.tenant_id = m.t AND k.id = m.c ORDER BY k.tenant_id, k.id FOR NO KEY UPDATE OF k)`;
/** A qual with no column: a one-time filter, evaluated (the locks taken) before the update reads any row. */
const AFTER_LOCKING = `(SELECT count(*) FROM locked) >= 0`;

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

/**
 * `s` (t, c, sign, invoiced, paid, days, open, due): one row per invoice row version that moves
 * figures, −1 for the version removed, +1 for the one added; an update that keeps the customer and
 * every figure is left out, as the row trigger left it.
 */
function invoicesFunctionSql(): string {
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
      BEGIN
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
          ${move(`SELECT n.tenant_id, n.customer_id, 1, ${figuresOf('n')} FROM new_rows n`)};
        ELSIF TG_OP = 'DELETE' THEN
          ${move(`SELECT o.tenant_id, o.customer_id, -1, ${figuresOf('o')} FROM old_rows o`)};
        ELSE
          ${move(`
            WITH p AS (
              SELECT o.tenant_id AS ot, o.customer_id AS oc, n.tenant_id AS nt, n.customer_id AS nc, ${figuresOf('o', 'o_')}, ${figuresOf('n', 'n_')}
                FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id),
            q AS (SELECT * FROM p WHERE (nt, nc) IS DISTINCT FROM (ot, oc)
                     OR (n_invoiced, n_paid, n_days, n_open, n_due) IS DISTINCT FROM (o_invoiced, o_paid, o_days, o_open, o_due))
            SELECT ot, oc, -1, o_invoiced, o_paid, o_days, o_open, o_due FROM q
            UNION ALL
            SELECT nt, nc, 1, n_invoiced, n_paid, n_days, n_open, n_due FROM q`)};
        END IF;
        RETURN NULL;
      END $$`;
}
