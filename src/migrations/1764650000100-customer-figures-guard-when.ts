import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The customers' figure guard (migration 1763801200000) acts on two kinds of update only: one that
 * comes from outside any trigger (the application or an operator writing a figure: refused), and
 * one that moves `overdue_as_of` (the overdue figures recounted). Every other update of a customer
 * row — the three per auto-matched payment among them, made by the figure triggers — called the
 * function to do nothing. WHEN clauses now say when it acts, so those updates call no function (as
 * the receivable totals guard beside it already does, migration 1763801500000). The function is
 * unchanged; its own tests still decide.
 */
export class CustomerFiguresGuardWhen1764650000100 implements MigrationInterface {
  name = 'CustomerFiguresGuardWhen1764650000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER customers_figures_guard ON customers`);
    // pg_trigger_depth() in WHEN is the depth of the statement that writes the row: 0 from outside
    // any trigger (inside the function, 1: the depth it tests).
    await q.query(`
      CREATE TRIGGER customers_figures_guard_insert BEFORE INSERT ON customers
        FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION customers_figures_guard()`);
    await q.query(`
      CREATE TRIGGER customers_figures_guard_update BEFORE UPDATE ON customers
        FOR EACH ROW WHEN (pg_trigger_depth() < 1 OR NEW.overdue_as_of IS DISTINCT FROM OLD.overdue_as_of)
        EXECUTE FUNCTION customers_figures_guard()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER customers_figures_guard_update ON customers`);
    await q.query(`DROP TRIGGER customers_figures_guard_insert ON customers`);
    await q.query(`CREATE TRIGGER customers_figures_guard BEFORE INSERT OR UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION customers_figures_guard()`);
  }
}
