import { MigrationInterface, QueryRunner } from 'typeorm';
import { openInvoiceSql } from '../shared/infrastructure/query/receivable.sql';

/**
 * The customers' invoice figures and balance are moved once per statement and customer instead of
 * once per row (docs/adr/0042). A bank import group updates ~200 invoices and inserts ~400 ledger
 * lines in one statement each; the row triggers (migration 1763801200000) ran one PL/pgSQL call and
 * one single-row `UPDATE customers` per row. These AFTER … FOR EACH STATEMENT triggers read the
 * statement's rows from its transition tables, sum the moves per customer, lock the customers in
 * (tenant, id) order when there are several (invoices are locked before customers everywhere, ADR
 * 11; customers by id among themselves) and update each customer once, with the same arithmetic:
 * the history deltas, each open amount counted overdue when due before the customer's overdue_as_of
 * (read from the locked row version being updated), and overdue_refresh_on lowered to the earliest
 * open due date on or after it, plus one. An invoice update whose figures do not change moves
 * nothing, as before. A ledger line moves its customer's balance by debit − credit on insert; an
 * update or delete of a ledger line (none in the service) keeps the row trigger, since transition
 * tables cannot go with `UPDATE OF` columns. down() restores the row triggers.
 */
export class CustomerFiguresMovedPerStatement1764700000000 implements MigrationInterface {
  name = 'CustomerFiguresMovedPerStatement1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER invoices_customer_figures ON invoices`);
    await q.query(invoicesCustomerFiguresRowsFunctionSql());
    for (const [event, referencing] of [
      ['INSERT', 'NEW TABLE AS new_rows'],
      ['UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
      ['DELETE', 'OLD TABLE AS old_rows'],
    ]) {
      await q.query(`
        CREATE TRIGGER invoices_customer_figures_${event.toLowerCase()} AFTER ${event} ON invoices
          REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION invoices_customer_figures_rows()`);
    }
    await q.query(`DROP FUNCTION invoices_customer_figures()`);

    await q.query(`DROP TRIGGER ledger_entries_customer_balance ON ledger_entries`);
    await q.query(`
      CREATE FUNCTION ledger_entries_customer_balance_rows() RETURNS trigger LANGUAGE plpgsql AS $$
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
      CREATE TRIGGER ledger_entries_customer_balance_insert AFTER INSERT ON ledger_entries
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_customer_balance_rows()`);
    await q.query(`
      CREATE TRIGGER ledger_entries_customer_balance
        AFTER DELETE OR UPDATE OF tenant_id, customer_id, debit, credit ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_customer_balance()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER ledger_entries_customer_balance ON ledger_entries`);
    await q.query(`DROP TRIGGER ledger_entries_customer_balance_insert ON ledger_entries`);
    await q.query(`DROP FUNCTION ledger_entries_customer_balance_rows()`);
    await q.query(`
      CREATE TRIGGER ledger_entries_customer_balance
        AFTER INSERT OR DELETE OR UPDATE OF tenant_id, customer_id, debit, credit ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_customer_balance()`);

    for (const event of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER invoices_customer_figures_${event} ON invoices`);
    await q.query(`DROP FUNCTION invoices_customer_figures_rows()`);
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
    await q.query(`
      CREATE TRIGGER invoices_customer_figures
        AFTER INSERT OR UPDATE OR DELETE ON invoices
        FOR EACH ROW EXECUTE FUNCTION invoices_customer_figures()`);
  }
}

/** An invoice row's figures, as the row trigger computed them, for the row alias `r`. */
function figuresOf(r: string): string {
  return `CASE WHEN ${r}.finalized_at IS NOT NULL AND ${r}.status <> 'void' THEN ${r}.total ELSE 0 END::bigint AS invoiced,
          CASE WHEN ${r}.status = 'paid' THEN 1 ELSE 0 END AS paid,
          CASE WHEN ${r}.status = 'paid' THEN ${r}.paid_on - ${r}.issue_date ELSE 0 END::bigint AS days,
          CASE WHEN ${openInvoiceSql(`${r}.`)} THEN ${r}.amount_due ELSE 0 END::bigint AS open,
          CASE WHEN ${openInvoiceSql(`${r}.`)} THEN ${r}.due_date END AS due`;
}

/**
 * The statement trigger's function. `sides`: one row per invoice row version that moves figures,
 * sign −1 for the version removed (old), +1 for the one added (new); an update that keeps the
 * customer and every figure is left out, as the row trigger left it.
 */
export function invoicesCustomerFiguresRowsFunctionSql(): string {
  const moves = (sides: string) => `
          SELECT array_agg(t ORDER BY t, c), array_agg(c ORDER BY t, c), array_agg(invoiced ORDER BY t, c), array_agg(paid ORDER BY t, c),
                 array_agg(days ORDER BY t, c), array_agg(opens ORDER BY t, c), array_agg(dues ORDER BY t, c)
            INTO ts, cs, d_invoiced, d_paid, d_days, v_opens, v_dues
            FROM (SELECT s.t, s.c, SUM(s.sign * s.invoiced)::bigint AS invoiced, SUM(s.sign * s.paid)::int AS paid,
                         SUM(s.sign * s.days)::bigint AS days,
                         array_to_string(array_agg(s.sign * s.open) FILTER (WHERE s.open > 0), ',') AS opens,
                         array_to_string(array_agg(s.due) FILTER (WHERE s.open > 0), ',') AS dues
                    FROM (${sides}) s GROUP BY s.t, s.c) m`;
  return `
      CREATE OR REPLACE FUNCTION invoices_customer_figures_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ts text[]; cs text[]; d_invoiced bigint[]; d_paid int[]; d_days bigint[]; v_opens text[]; v_dues text[];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          ${moves(`SELECT n.tenant_id AS t, n.customer_id AS c, 1 AS sign, ${figuresOf('n')} FROM new_rows n`)};
        ELSIF TG_OP = 'DELETE' THEN
          ${moves(`SELECT o.tenant_id AS t, o.customer_id AS c, -1 AS sign, ${figuresOf('o')} FROM old_rows o`)};
        ELSE
          ${moves(`
            WITH pairs AS (
              SELECT o.tenant_id AS ot, o.customer_id AS oc, n.tenant_id AS nt, n.customer_id AS nc,
                     ROW(${figuresOf('o').replace(/ AS \w+/g, '')}) AS o_fig, ROW(${figuresOf('n').replace(/ AS \w+/g, '')}) AS n_fig
                FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id),
            moved AS (SELECT * FROM pairs WHERE (nt, nc) IS DISTINCT FROM (ot, oc) OR n_fig IS DISTINCT FROM o_fig)
            SELECT ot AS t, oc AS c, -1 AS sign, (o_fig).f1 AS invoiced, (o_fig).f2 AS paid, (o_fig).f3 AS days, (o_fig).f4 AS open, (o_fig).f5 AS due FROM moved
            UNION ALL
            SELECT nt, nc, 1, (n_fig).f1, (n_fig).f2, (n_fig).f3, (n_fig).f4, (n_fig).f5 FROM moved`)};
        END IF;
        IF ts IS NULL THEN RETURN NULL; END IF;
        IF cardinality(ts) > 1 THEN
          PERFORM 1 FROM customers c JOIN unnest(ts, cs) AS m (t, id) ON c.tenant_id = m.t AND c.id = m.id
            ORDER BY c.tenant_id, c.id FOR NO KEY UPDATE OF c;
        END IF;
        UPDATE customers c
           SET total_invoiced = c.total_invoiced + m.invoiced,
               paid_invoice_count = c.paid_invoice_count + m.paid,
               paid_days_sum = c.paid_days_sum + m.days,
               overdue_amount = c.overdue_amount
                 + (SELECT COALESCE(SUM(CASE WHEN x.due < c.overdue_as_of THEN x.open ELSE 0 END), 0)
                      FROM unnest(string_to_array(m.opens, ',')::bigint[], string_to_array(m.dues, ',')::date[]) AS x (open, due)),
               overdue_refresh_on = LEAST(c.overdue_refresh_on,
                 (SELECT MIN(x.due) + 1 FROM unnest(string_to_array(m.opens, ',')::bigint[], string_to_array(m.dues, ',')::date[]) AS x (open, due)
                   WHERE x.open > 0 AND x.due >= c.overdue_as_of))
          FROM unnest(ts, cs, d_invoiced, d_paid, d_days, v_opens, v_dues) AS m (t, id, invoiced, paid, days, opens, dues)
         WHERE c.tenant_id = m.t AND c.id = m.id;
        RETURN NULL;
      END $$`;
}
