import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { DomainEvent } from '../../../shared/domain/aggregate-root';
import { addDays, Clock } from '../../../shared/domain/clock';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { openInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { positiveIntFromEnv, PeriodicTask } from '../../../shared/infrastructure/scheduling/periodic-task';
import { InvoiceRepository } from '../../invoicing';
import { TenantCalendar } from '../../settings';
import { dueDatesWithReminderIn, dueReminder, INVOICE_REMINDER, ReminderWindow, reminderWindow } from '../domain/reminder-rule';

/** An invoice that may get a reminder, and the last reminder day it got for its due date. */
interface Candidate {
  id: string;
  due_date: string;
  last_days: number | null;
}

interface BatchResult {
  sent: number;
  /** candidates looked at (fewer than a batch: the window is done) */
  scanned: number;
  /** the keyset position after this batch */
  after: { dueDate: string; id: string };
  /** false when a due reminder could not be sent now (its invoice was being changed) */
  complete: boolean;
}

/** Reminders are only for invoices that expect money and are not disputed (contract §16). */
const REMINDABLE = `${openInvoiceSql('i.')} AND i.dispute_status IS DISTINCT FROM 'open'`;

/**
 * Emits `invoice.reminder` (contract §16, ADR 24): for each tenant with reminders enabled, each
 * open, undisputed invoice gets the latest reminder day that has come in the tenant's time zone,
 * once. A scan covers the tenant-local dates since its last complete scan (today always included);
 * it looks up only the due dates that have a reminder day in that window, in the open-invoice
 * index by due date, in keyset batches. Each batch runs in one transaction under a per-tenant
 * advisory lock, holds the tenant's settings row (a PATCH that turns reminders off waits for it,
 * then no further reminder goes out), locks its invoices FOR SHARE SKIP LOCKED and inserts one
 * `invoice_reminders` row per reminder (its primary key forbids a second one) with the outbox row.
 * An invoice skipped because a payment held it keeps the window open until a later scan has it.
 */
@Injectable()
export class ReminderScanJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReminderScanJob');
  private readonly task: PeriodicTask;
  /** invoices looked at per transaction */
  private readonly batchSize = positiveIntFromEnv('REMINDER_SCAN_BATCH', 500);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly invoices: InvoiceRepository,
    private readonly calendar: TenantCalendar,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(this.logger, positiveIntFromEnv('REMINDER_SCAN_MS', 300_000), () => this.runOnce());
  }

  onApplicationBootstrap(): void {
    if (this.config.workersEnabled) this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One scan over every tenant with reminders enabled; returns how many reminders it sent. */
  async runOnce(): Promise<number> {
    // A tenant that turned reminders off forgets where its scans were: turning them on again
    // starts with that day's reminders, never a backlog of the days they were off.
    await this.uow.query(
      `DELETE FROM reminder_scans r USING tenant_settings s WHERE s.tenant_id = r.tenant_id AND NOT s.reminders_enabled`,
    );
    const tenants = await this.uow.query<{ tenant_id: string }>(
      `SELECT tenant_id FROM tenant_settings WHERE reminders_enabled ORDER BY tenant_id`,
    );
    let sent = 0;
    for (const { tenant_id } of tenants) {
      if (this.task.stopped) break;
      sent += await this.scanTenant(tenant_id);
    }
    return sent;
  }

  private async scanTenant(tenantId: string): Promise<number> {
    const today = await this.calendar.today(tenantId);
    const [scan] = await this.uow.query<{ complete_through: string }>(
      `SELECT to_char(complete_through, 'YYYY-MM-DD') AS complete_through FROM reminder_scans WHERE tenant_id = $1`,
      [tenantId],
    );
    const window = reminderWindow(scan?.complete_through ?? null, today);
    let after = { dueDate: '0001-01-01', id: '' };
    let complete = true;
    let sent = 0;
    for (;;) {
      const batch = await this.uow.run(() => this.batch(tenantId, today, window, after));
      if (!batch) return sent; // reminders were turned off meanwhile
      sent += batch.sent;
      complete &&= batch.complete;
      after = batch.after;
      if (batch.scanned < this.batchSize) break;
      if (this.task.stopped) return sent;
    }
    if (complete) {
      // Every reminder due up to yesterday is settled; today stays open (invoices created or
      // reopened later today still get today's reminder on the next scan).
      await this.uow.query(
        `INSERT INTO reminder_scans (tenant_id, complete_through, updated_at) VALUES ($1, $2::date, $3)
         ON CONFLICT (tenant_id) DO UPDATE
           SET complete_through = GREATEST(reminder_scans.complete_through, EXCLUDED.complete_through), updated_at = EXCLUDED.updated_at`,
        [tenantId, addDays(today, -1), this.clock.now()],
      );
    }
    if (sent > 0) this.logger.log(`${sent} reminder(s) sent for tenant ${tenantId}`);
    return sent;
  }

  private async batch(tenantId: string, today: string, window: ReminderWindow, after: BatchResult['after']): Promise<BatchResult | null> {
    // One batch of a tenant at a time over all instances; the next waits, then sees what this one sent.
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`reminders:${tenantId}`]);
    const [settings] = await this.uow.query<{ reminder_days: number[] }>(
      `SELECT reminder_days FROM tenant_settings WHERE tenant_id = $1 AND reminders_enabled FOR SHARE`,
      [tenantId],
    );
    if (!settings) return null;
    const days = settings.reminder_days;
    // Only the due dates that have a reminder day in the window, each an index range of
    // invoices_open_due_date_idx (tenant_id, due_date, id) WHERE status IN the open ones.
    const candidates = await this.uow.query<Candidate>(
      `SELECT i.id, to_char(i.due_date, 'YYYY-MM-DD') AS due_date,
              (SELECT max(r.days) FROM invoice_reminders r
                WHERE r.tenant_id = i.tenant_id AND r.invoice_id = i.id AND r.due_date = i.due_date) AS last_days
         FROM invoices i
        WHERE i.tenant_id = $1 AND i.due_date = ANY($2::date[]) AND (i.due_date, i.id) > ($3::date, $4::text)
          AND ${REMINDABLE}
        ORDER BY i.due_date, i.id
        LIMIT $5`,
      [tenantId, dueDatesWithReminderIn(window, days), after.dueDate, after.id, this.batchSize],
    );
    const last = candidates[candidates.length - 1];
    const result: BatchResult = { sent: 0, scanned: candidates.length, after: last ? { dueDate: last.due_date, id: last.id } : after, complete: true };
    const due = candidates
      .map((c) => ({ id: c.id, dueDate: c.due_date, days: dueReminder(c.due_date, days, today, c.last_days) }))
      .filter((c): c is { id: string; dueDate: string; days: number } => c.days !== null);
    if (due.length === 0) return result;

    // Held for the rest of the transaction: the reminder describes the invoice as committed, and a
    // payment settling it waits for the reminder's commit (or this invoice waits for the next scan).
    const locked = await this.uow.query<{ id: string }>(
      `SELECT i.id FROM invoices i JOIN unnest($2::text[], $3::date[]) AS c (id, due_date) ON i.id = c.id AND i.due_date = c.due_date
        WHERE i.tenant_id = $1 AND ${REMINDABLE}
        FOR SHARE OF i SKIP LOCKED`,
      [tenantId, due.map((c) => c.id), due.map((c) => c.dueDate)],
    );
    result.complete = locked.length === due.length;
    const lockedIds = new Set(locked.map((l) => l.id));
    const toSend = due.filter((c) => lockedIds.has(c.id));
    if (toSend.length === 0) return result;

    const now = this.clock.now();
    const inserted = await this.uow.query<{ invoice_id: string; days: number; sequence: number }>(
      `INSERT INTO invoice_reminders (tenant_id, invoice_id, due_date, days, sequence, sent_on, created_at)
       SELECT $1, c.id, c.due_date, c.days,
              (SELECT count(*) FROM invoice_reminders r WHERE r.tenant_id = $1 AND r.invoice_id = c.id) + 1, $5::date, $6
         FROM unnest($2::text[], $3::date[], $4::int[]) AS c (id, due_date, days)
       ON CONFLICT DO NOTHING
       RETURNING invoice_id, days, sequence`,
      [tenantId, toSend.map((c) => c.id), toSend.map((c) => c.dueDate), toSend.map((c) => c.days), today, now],
    );
    const reminders = new Map(inserted.map((r) => [r.invoice_id, { days: r.days, sequence: r.sequence }]));
    const events: DomainEvent[] = (await this.invoices.findByIds(tenantId, [...reminders.keys()])).map((invoice) => ({
      type: INVOICE_REMINDER,
      aggregateType: 'invoice',
      aggregateId: invoice.id,
      tenantId,
      occurredAt: now,
      data: { object: { ...invoice.toJSON(today) }, reminder: reminders.get(invoice.id) },
    }));
    await this.uow.publish(events);
    result.sent = events.length;
    return result;
  }
}
