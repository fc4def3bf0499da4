import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The commit-time checks of a payment's and an invoice's figures (docs/adr/0040, 0042) run in the
 * constraint trigger's own function instead of through `PERFORM check_…_figures(…)`: each PERFORM
 * was one more statement through SPI and the executor plus a PL/pgSQL call, around the one
 * statement that reads the row and its sums — and a bank import entry runs four checks (its
 * payment's and its invoice's, each from the row's trigger and from the application's). Same
 * statement, same comparisons in the same order, same errors; the rule has one text (below), from
 * which the check functions (still called by the refund and credit-note triggers) are made too.
 * down() restores the triggers' PERFORM calls.
 */
export class FigureChecksInTheTrigger1764700000200 implements MigrationInterface {
  name = 'FigureChecksInTheTrigger1764700000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(checkFunctionSql('check_payment_figures', paymentCheckSql('t', 'row_id')));
    await q.query(checkFunctionSql('check_invoice_figures', invoiceCheckSql('t', 'row_id')));
    await q.query(triggerFunctionSql('payments_figures_check', paymentCheckSql('NEW.tenant_id', 'NEW.id')));
    await q.query(triggerFunctionSql('invoices_figures_check', invoiceCheckSql('NEW.tenant_id', 'NEW.id')));
    await q.query(
      triggerFunctionSql('payment_applications_figures_check', `${paymentCheckSql('NEW.tenant_id', 'NEW.payment_id')}\n${invoiceCheckSql('NEW.tenant_id', 'NEW.invoice_id')}`),
    );
    await q.query(triggerFunctionSql('invoice_write_offs_figures_check', invoiceCheckSql('NEW.tenant_id', 'NEW.invoice_id')));
  }

  async down(q: QueryRunner): Promise<void> {
    const performing = (name: string, body: string) => `
      CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${body}
        RETURN NULL;
      END $$`;
    await q.query(performing('payments_figures_check', 'PERFORM check_payment_figures(NEW.tenant_id, NEW.id);'));
    await q.query(performing('invoices_figures_check', 'PERFORM check_invoice_figures(NEW.tenant_id, NEW.id);'));
    await q.query(
      performing(
        'payment_applications_figures_check',
        'PERFORM check_payment_figures(NEW.tenant_id, NEW.payment_id);\n        PERFORM check_invoice_figures(NEW.tenant_id, NEW.invoice_id);',
      ),
    );
    await q.query(performing('invoice_write_offs_figures_check', 'PERFORM check_invoice_figures(NEW.tenant_id, NEW.invoice_id);'));
  }
}

/** A load or recount (receivables.recount = 'on') checks set-wise afterwards: the row checks stand aside. */
const NOT_RECOUNTING = `current_setting('receivables.recount', true) IS DISTINCT FROM 'on'`;

/** Checks payment `id` of tenant `t` (SQL expressions): amount_applied and amount_refunded against their rows. */
export function paymentCheckSql(t: string, id: string): string {
  return `
        SELECT p.amount_applied, p.amount_refunded,
               (SELECT COALESCE(SUM(a.amount), 0) FROM payment_applications a
                 WHERE a.tenant_id = ${t} AND a.payment_id = ${id} AND a.reversed_at IS NULL) AS applied,
               (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r WHERE r.tenant_id = ${t} AND r.payment_id = ${id}) AS refunded
          INTO pay FROM payments p WHERE p.tenant_id = ${t} AND p.id = ${id};
        IF FOUND THEN
          IF pay.applied <> pay.amount_applied THEN
            RAISE EXCEPTION 'payment %: amount_applied is % but its applications sum to %', ${id}, pay.amount_applied, pay.applied
              USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
          END IF;
          IF pay.refunded <> pay.amount_refunded THEN
            RAISE EXCEPTION 'payment %: amount_refunded is % but its refunds sum to %', ${id}, pay.amount_refunded, pay.refunded
              USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
          END IF;
        END IF;`;
}

/** Checks invoice `id` of tenant `t` (SQL expressions): amount_paid, amount_written_off, amount_credited against their rows. */
export function invoiceCheckSql(t: string, id: string): string {
  return `
        SELECT i.amount_paid, i.amount_credited, i.amount_written_off,
               (SELECT COALESCE(SUM(a.amount), 0) FROM payment_applications a
                 WHERE a.tenant_id = ${t} AND a.invoice_id = ${id} AND a.reversed_at IS NULL) AS paid,
               (SELECT COALESCE(SUM(w.amount), 0) FROM invoice_write_offs w WHERE w.tenant_id = ${t} AND w.invoice_id = ${id}) AS written_off,
               (SELECT COALESCE(SUM(c.amount), 0) FROM credit_note_applications c WHERE c.tenant_id = ${t} AND c.invoice_id = ${id}) AS credited
          INTO inv FROM invoices i WHERE i.tenant_id = ${t} AND i.id = ${id};
        IF FOUND THEN
          IF inv.paid <> inv.amount_paid THEN
            RAISE EXCEPTION 'invoice %: amount_paid is % but its applications sum to %', ${id}, inv.amount_paid, inv.paid
              USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
          END IF;
          IF inv.written_off <> inv.amount_written_off THEN
            RAISE EXCEPTION 'invoice %: amount_written_off is % but its write-offs sum to %', ${id}, inv.amount_written_off, inv.written_off
              USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
          END IF;
          IF inv.credited <> inv.amount_credited THEN
            RAISE EXCEPTION 'invoice %: amount_credited is % but the credit applied to it sums to %', ${id}, inv.amount_credited, inv.credited
              USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
          END IF;
        END IF;`;
}

function checkFunctionSql(name: string, checks: string): string {
  return `
      CREATE OR REPLACE FUNCTION ${name}(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
        inv record;
      BEGIN
        IF ${NOT_RECOUNTING} THEN${checks}
        END IF;
      END $$`;
}

function triggerFunctionSql(name: string, checks: string): string {
  return `
      CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
        inv record;
      BEGIN
        IF ${NOT_RECOUNTING} THEN${checks}
        END IF;
        RETURN NULL;
      END $$`;
}
