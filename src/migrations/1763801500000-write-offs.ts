import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Write-offs (contract §15), and the invoice figures that credit notes will join.
 *
 * - invoices gain `amount_credited` (Σ credit notes applied, kept by a later migration's rows)
 *   and `amount_written_off` (Σ invoice_write_offs); `amount_due` becomes
 *   `total − amount_paid − amount_credited − amount_written_off` (its generated expression,
 *   so every reader of the column — the open-invoice rule, aging, overdue figures, matching
 *   candidates — counts credits and write-offs with no change of their own).
 * - Check constraints: the three settlements are ≥ 0 and together ≤ total; drafts and voids
 *   have none; `paid` has nothing due.
 * - `invoice_write_offs` are facts: inserted once, never updated or deleted.
 * - The commit-time guard on every invoice (ADR 17) now also checks `amount_written_off` = Σ its
 *   write-offs and `amount_credited` = 0 (no credit notes yet), and runs for a write-off row too.
 * - customers gain `total_written_off` (AR summary): what was written off and not reopened —
 *   Σ amount_written_off, plus the amount due of invoices marked uncollectible. Kept by a trigger
 *   on invoices (like the other history figures, ADR 14/17) and written by nothing else.
 */
export class WriteOffs1763801500000 implements MigrationInterface {
  name = 'WriteOffs1763801500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE invoices
        ADD COLUMN amount_credited bigint NOT NULL DEFAULT 0,
        ADD COLUMN amount_written_off bigint NOT NULL DEFAULT 0`);
    // PostgreSQL 17+: rewrites the column and the indexes on it (amount_due sorts, open invoices).
    await q.query(`ALTER TABLE invoices ALTER COLUMN amount_due SET EXPRESSION AS (total - amount_paid - amount_credited - amount_written_off)`);
    await q.query(`
      ALTER TABLE invoices
        DROP CONSTRAINT invoices_check2,
        DROP CONSTRAINT invoices_check3,
        DROP CONSTRAINT invoices_check4,
        ADD CONSTRAINT invoices_settled_within_total
          CHECK (amount_paid >= 0 AND amount_credited >= 0 AND amount_written_off >= 0
                 AND amount_paid + amount_credited + amount_written_off <= total),
        ADD CONSTRAINT invoices_settled_only_when_finalized
          CHECK (status NOT IN ('draft', 'void') OR (amount_paid = 0 AND amount_credited = 0 AND amount_written_off = 0)),
        ADD CONSTRAINT invoices_paid_has_nothing_due
          CHECK (status <> 'paid' OR amount_paid + amount_credited + amount_written_off = total)`);

    await q.query(`
      CREATE TABLE invoice_write_offs (
        tenant_id text NOT NULL,
        id text NOT NULL,
        invoice_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        reason text NOT NULL CHECK (reason IN ('bad_debt', 'short_pay', 'small_balance', 'other')),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX invoice_write_offs_invoice_idx ON invoice_write_offs (tenant_id, invoice_id, created_at, id)`);
    // One function for every table of facts that are never changed or removed (refunds and credit note applications too).
    await q.query(`
      CREATE FUNCTION immutable_fact() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% rows are facts: never updated or deleted', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
      END $$`);
    await q.query(`
      CREATE TRIGGER invoice_write_offs_immutable BEFORE UPDATE OR DELETE ON invoice_write_offs
        FOR EACH ROW EXECUTE FUNCTION immutable_fact()`);

    // ---- the guard on every invoice: each figure is the sum of its rows --------------------------
    await q.query(`
      CREATE OR REPLACE FUNCTION check_invoice_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        inv record;
        applied bigint;
        written bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT amount_paid, amount_credited, amount_written_off INTO inv FROM invoices WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO applied FROM payment_applications
         WHERE tenant_id = t AND invoice_id = row_id AND reversed_at IS NULL;
        IF applied <> inv.amount_paid THEN
          RAISE EXCEPTION 'invoice %: amount_paid is % but its applications sum to %', row_id, inv.amount_paid, applied
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO written FROM invoice_write_offs WHERE tenant_id = t AND invoice_id = row_id;
        IF written <> inv.amount_written_off THEN
          RAISE EXCEPTION 'invoice %: amount_written_off is % but its write-offs sum to %', row_id, inv.amount_written_off, written
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        IF inv.amount_credited <> 0 THEN
          RAISE EXCEPTION 'invoice %: amount_credited is % but no credit note is applied to it', row_id, inv.amount_credited
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
      END $$`);
    await q.query(`DROP TRIGGER invoices_figures_insert ON invoices`);
    await q.query(`DROP TRIGGER invoices_figures_update ON invoices`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER invoices_figures_insert AFTER INSERT ON invoices DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.amount_paid <> 0 OR NEW.amount_credited <> 0 OR NEW.amount_written_off <> 0)
        EXECUTE FUNCTION invoices_figures_check()`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER invoices_figures_update AFTER UPDATE ON invoices DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((NEW.tenant_id, NEW.id, NEW.amount_paid, NEW.amount_credited, NEW.amount_written_off)
                           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.amount_paid, OLD.amount_credited, OLD.amount_written_off))
        EXECUTE FUNCTION invoices_figures_check()`);
    await q.query(`
      CREATE FUNCTION invoice_write_offs_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM check_invoice_figures(NEW.tenant_id, NEW.invoice_id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER invoice_write_offs_figures AFTER INSERT ON invoice_write_offs DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION invoice_write_offs_figures_check()`);

    // ---- customers.total_written_off, kept from the invoices ----------------------------------------
    await q.query(`ALTER TABLE customers ADD COLUMN total_written_off bigint NOT NULL DEFAULT 0 CHECK (total_written_off >= 0)`);
    // An invoice's part: its write-offs, and its amount due while it is marked uncollectible.
    await q.query(`
      CREATE FUNCTION invoices_written_off_figure() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        o bigint := 0;
        n bigint := 0;
      BEGIN
        IF TG_OP <> 'INSERT' THEN o := OLD.amount_written_off + CASE WHEN OLD.status = 'uncollectible' THEN OLD.amount_due ELSE 0 END; END IF;
        IF TG_OP <> 'DELETE' THEN n := NEW.amount_written_off + CASE WHEN NEW.status = 'uncollectible' THEN NEW.amount_due ELSE 0 END; END IF;
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
      END $$`);
    // WHEN clauses (evaluated without calling the function): the hot paths — an invoice created,
    // a payment applied — queue nothing. Not deferred: invoices are locked before their customer.
    await q.query(`
      CREATE TRIGGER invoices_written_off_figure_insert AFTER INSERT ON invoices
        FOR EACH ROW WHEN (NEW.amount_written_off <> 0 OR NEW.status = 'uncollectible')
        EXECUTE FUNCTION invoices_written_off_figure()`);
    await q.query(`
      CREATE TRIGGER invoices_written_off_figure_update AFTER UPDATE ON invoices
        FOR EACH ROW WHEN (NEW.amount_written_off <> OLD.amount_written_off OR NEW.status = 'uncollectible' OR OLD.status = 'uncollectible'
                           OR (NEW.tenant_id, NEW.customer_id) IS DISTINCT FROM (OLD.tenant_id, OLD.customer_id))
        EXECUTE FUNCTION invoices_written_off_figure()`);
    await q.query(`
      CREATE TRIGGER invoices_written_off_figure_delete AFTER DELETE ON invoices
        FOR EACH ROW WHEN (OLD.amount_written_off <> 0 OR OLD.status = 'uncollectible')
        EXECUTE FUNCTION invoices_written_off_figure()`);
    await q.query(receivableTotalsGuardSql(['total_written_off']));
    // Invoices already marked uncollectible count from the start (a recount: the guard lets it through).
    await q.query(`SELECT set_config('receivables.recount', 'on', true)`);
    await q.query(`
      UPDATE customers c SET total_written_off = w.amount
        FROM (SELECT tenant_id, customer_id, SUM(amount_due) AS amount FROM invoices WHERE status = 'uncollectible' GROUP BY tenant_id, customer_id) w
       WHERE c.tenant_id = w.tenant_id AND c.id = w.customer_id`);
    await q.query(`SELECT set_config('receivables.recount', 'off', true)`);
  }

  /** Irreversible: restore a dump taken before it instead (the guard functions it replaced are ADR 17's). */
  async down(): Promise<void> {
    throw new Error(`${this.name} cannot be reverted; restore a database dump taken before it`);
  }
}

/**
 * The guard of the customers' credit, write-off and refund totals (ADR 17's rule for every stored
 * figure): only triggers write them, except in a transaction that announced a recount. A second
 * guard beside `customers_figures_guard`, with a WHEN clause, so the customer updates of the hot
 * paths (which leave these columns alone) call no function. Later migrations re-create it with
 * the columns they add.
 */
export function receivableTotalsGuardSql(columns: readonly string[]): string {
  const list = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
  return `
    CREATE OR REPLACE FUNCTION customers_receivable_totals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF pg_trigger_depth() = 1 AND current_setting('receivables.recount', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION 'customer %: its figures are kept by the database from the rows they sum, never written directly', NEW.id
          USING ERRCODE = 'check_violation', CONSTRAINT = 'customer_figures';
      END IF;
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS customers_receivable_totals_guard_insert ON customers;
    DROP TRIGGER IF EXISTS customers_receivable_totals_guard_update ON customers;
    CREATE TRIGGER customers_receivable_totals_guard_insert BEFORE INSERT ON customers
      FOR EACH ROW WHEN ((${list('NEW')}) IS DISTINCT FROM (${columns.map(() => '0').join(', ')}))
      EXECUTE FUNCTION customers_receivable_totals_guard();
    CREATE TRIGGER customers_receivable_totals_guard_update BEFORE UPDATE ON customers
      FOR EACH ROW WHEN ((${list('NEW')}) IS DISTINCT FROM (${list('OLD')}))
      EXECUTE FUNCTION customers_receivable_totals_guard();`;
}
