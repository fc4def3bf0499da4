import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The commit-time figure checks (docs/adr/0040) read a payment's or an invoice's figures and the
 * sums of the rows that back them in one statement instead of one statement each (three for a
 * payment, four for an invoice). Each statement a PL/pgSQL function runs is a round through SPI
 * and the executor; an auto-matched payment runs each check twice. Same checks, same order, same
 * errors; down() restores the one-statement-per-sum versions (migrations 1763801510000, 1763801520000).
 */
export class FigureChecksInOneStatement1764650000000 implements MigrationInterface {
  name = 'FigureChecksInOneStatement1764650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION check_payment_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT p.amount_applied, p.amount_refunded,
               (SELECT COALESCE(SUM(a.amount), 0) FROM payment_applications a
                 WHERE a.tenant_id = t AND a.payment_id = row_id AND a.reversed_at IS NULL) AS applied,
               (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r WHERE r.tenant_id = t AND r.payment_id = row_id) AS refunded
          INTO pay FROM payments p WHERE p.tenant_id = t AND p.id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        IF pay.applied <> pay.amount_applied THEN
          RAISE EXCEPTION 'payment %: amount_applied is % but its applications sum to %', row_id, pay.amount_applied, pay.applied
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
        IF pay.refunded <> pay.amount_refunded THEN
          RAISE EXCEPTION 'payment %: amount_refunded is % but its refunds sum to %', row_id, pay.amount_refunded, pay.refunded
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION check_invoice_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        inv record;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT i.amount_paid, i.amount_credited, i.amount_written_off,
               (SELECT COALESCE(SUM(a.amount), 0) FROM payment_applications a
                 WHERE a.tenant_id = t AND a.invoice_id = row_id AND a.reversed_at IS NULL) AS paid,
               (SELECT COALESCE(SUM(w.amount), 0) FROM invoice_write_offs w WHERE w.tenant_id = t AND w.invoice_id = row_id) AS written_off,
               (SELECT COALESCE(SUM(c.amount), 0) FROM credit_note_applications c WHERE c.tenant_id = t AND c.invoice_id = row_id) AS credited
          INTO inv FROM invoices i WHERE i.tenant_id = t AND i.id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        IF inv.paid <> inv.amount_paid THEN
          RAISE EXCEPTION 'invoice %: amount_paid is % but its applications sum to %', row_id, inv.amount_paid, inv.paid
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        IF inv.written_off <> inv.amount_written_off THEN
          RAISE EXCEPTION 'invoice %: amount_written_off is % but its write-offs sum to %', row_id, inv.amount_written_off, inv.written_off
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        IF inv.credited <> inv.amount_credited THEN
          RAISE EXCEPTION 'invoice %: amount_credited is % but the credit applied to it sums to %', row_id, inv.amount_credited, inv.credited
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION check_payment_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
        summed bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT amount_applied, amount_refunded INTO pay FROM payments WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM payment_applications
         WHERE tenant_id = t AND payment_id = row_id AND reversed_at IS NULL;
        IF summed <> pay.amount_applied THEN
          RAISE EXCEPTION 'payment %: amount_applied is % but its applications sum to %', row_id, pay.amount_applied, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM refunds WHERE tenant_id = t AND payment_id = row_id;
        IF summed <> pay.amount_refunded THEN
          RAISE EXCEPTION 'payment %: amount_refunded is % but its refunds sum to %', row_id, pay.amount_refunded, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION check_invoice_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        inv record;
        summed bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT amount_paid, amount_credited, amount_written_off INTO inv FROM invoices WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM payment_applications
         WHERE tenant_id = t AND invoice_id = row_id AND reversed_at IS NULL;
        IF summed <> inv.amount_paid THEN
          RAISE EXCEPTION 'invoice %: amount_paid is % but its applications sum to %', row_id, inv.amount_paid, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM invoice_write_offs WHERE tenant_id = t AND invoice_id = row_id;
        IF summed <> inv.amount_written_off THEN
          RAISE EXCEPTION 'invoice %: amount_written_off is % but its write-offs sum to %', row_id, inv.amount_written_off, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM credit_note_applications WHERE tenant_id = t AND invoice_id = row_id;
        IF summed <> inv.amount_credited THEN
          RAISE EXCEPTION 'invoice %: amount_credited is % but the credit applied to it sums to %', row_id, inv.amount_credited, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
      END $$`);
  }
}
