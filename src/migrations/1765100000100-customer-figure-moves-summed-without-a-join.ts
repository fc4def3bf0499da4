import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The commit-time update of an opted-in transaction's customers (ADR 0045) summed the moves per
 * customer (`m`) and, apart, listed their open amounts and due dates per customer (`o`), then joined
 * the two. Its function forbids hash and merge joins (the moves' table has no statistics), so that
 * join was a nested loop of each customer against every customer's list: quadratic in the customers
 * of a transaction (an import part: ~55, 1,770 rows removed by the join filter for 60 customers).
 * Now one aggregate per customer reads each move once and each of its open amounts once (as rows of
 * their own, `listed`), with the same sums, the same lists (in the same order as each other) and no
 * join (ADR 0051). Everything else is migration 1764900000000's function, its latest definition.
 */
export class CustomerFigureMovesSummedWithoutAJoin1765100000100 implements MigrationInterface {
  name = 'CustomerFigureMovesSummedWithoutAJoin1765100000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(applyFunctionSql(`
        -- Each move once, and each of its open amounts as a row of its own (listed): one aggregate per customer.
        r AS (SELECT d.tenant_id, d.customer_id, d.invoiced, d.paid, d.days, d.balance, d.total_paid, d.written_off,
                     d.last_payment_id, d.last_payment_date, false AS listed, NULL::bigint AS open, NULL::date AS due
                FROM d
              UNION ALL
              SELECT d.tenant_id, d.customer_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, x.open, x.due
                FROM d CROSS JOIN LATERAL unnest(d.opens, d.dues) AS x (open, due)),
        m AS (SELECT r.tenant_id AS t, r.customer_id AS c, SUM(r.invoiced)::bigint AS invoiced, SUM(r.paid)::int AS paid,
                      SUM(r.days)::bigint AS days, SUM(r.balance)::bigint AS balance, SUM(r.total_paid)::bigint AS total_paid,
                      SUM(r.written_off)::bigint AS written_off,
                      (array_agg(r.last_payment_id ORDER BY r.last_payment_date DESC, r.last_payment_id DESC)
                         FILTER (WHERE r.last_payment_id IS NOT NULL))[1] AS last_id,
                      MAX(r.last_payment_date) AS last_date,
                      array_agg(r.open) FILTER (WHERE r.listed) AS opens, array_agg(r.due) FILTER (WHERE r.listed) AS dues
                 FROM r WHERE r.customer_id IS NOT NULL GROUP BY r.tenant_id, r.customer_id),
        mo AS (SELECT * FROM m),`));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(applyFunctionSql(`
        m AS (SELECT d.tenant_id AS t, d.customer_id AS c, SUM(d.invoiced)::bigint AS invoiced, SUM(d.paid)::int AS paid,
                     SUM(d.days)::bigint AS days, SUM(d.balance)::bigint AS balance, SUM(d.total_paid)::bigint AS total_paid,
                     SUM(d.written_off)::bigint AS written_off,
                     (array_agg(d.last_payment_id ORDER BY d.last_payment_date DESC, d.last_payment_id DESC)
                        FILTER (WHERE d.last_payment_id IS NOT NULL))[1] AS last_id,
                     MAX(d.last_payment_date) AS last_date
                FROM d WHERE d.customer_id IS NOT NULL GROUP BY d.tenant_id, d.customer_id),
        o AS (SELECT d.tenant_id AS t, d.customer_id AS c, array_agg(x.open) AS opens, array_agg(x.due) AS dues
                FROM d CROSS JOIN LATERAL unnest(d.opens, d.dues) AS x (open, due) GROUP BY d.tenant_id, d.customer_id),
        mo AS (SELECT m.*, o.opens, o.dues FROM m LEFT JOIN o ON o.t = m.t AND o.c = m.c),`));
  }
}

/** Migration 1764900000000's function, its per-customer sums `m` (t, c, the sums) and `mo` (with opens, dues) given. */
function applyFunctionSql(sums: string): string {
  return `
      CREATE OR REPLACE FUNCTION customer_figure_moves_apply() RETURNS trigger LANGUAGE plpgsql
        -- The moves' table has no statistics: without these its plan joined a scan of every customer (1.5 ms per payment).
        SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
      BEGIN
        WITH d AS (DELETE FROM pg_temp.customer_figure_moves RETURNING *),${sums}
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
          FROM mo WHERE c.tenant_id = mo.t AND c.id = mo.c AND (SELECT count(*) FROM locked) >= 0;
        RETURN NULL;
      END $$`;
}
