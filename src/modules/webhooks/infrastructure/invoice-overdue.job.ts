import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DomainEvent } from '../../../shared/domain/aggregate-root';
import { Clock } from '../../../shared/domain/clock';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { OutboxWriter } from '../../../shared/infrastructure/outbox/outbox.writer';
import { overdueInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';
import { PeriodicTask } from '../../../shared/infrastructure/scheduling/periodic-task';
import { InvoiceRepository } from '../../invoicing';
import { TenantCalendar, tenantTodaySql } from '../../settings';
import { RELAY_SETTINGS, RelaySettings } from './relay-settings';

export const INVOICE_OVERDUE = 'invoice.overdue';
const BATCH = 200;
/** Only one instance scans at a time; the others wait their turn (the lock is per transaction). */
const SCAN_LOCK = 'webhooks:invoice-overdue-scan';

/**
 * Emits `invoice.overdue` once per invoice and due date, when the due date has passed in the
 * tenant's time zone (its local date, contract §13) and the invoice is still open or partially
 * paid with something due (contract §7's `overdue`).
 * Nothing changes on the invoice: overdue follows from the calendar, so this scheduled job
 * notices it. A notice row inserted with ON CONFLICT DO NOTHING in the same transaction as the
 * outbox row makes it fire once whatever the number of instances; candidate invoices are
 * read FOR SHARE SKIP LOCKED, so one being paid right now is looked at again next round
 * rather than announced overdue on a stale reading. Moving the due date out and letting it
 * pass again emits a new event. On a first deployment every invoice already overdue is
 * announced once.
 */
@Injectable()
export class InvoiceOverdueJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InvoiceOverdueJob');
  private readonly task: PeriodicTask;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly invoices: InvoiceRepository,
    private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly calendar: TenantCalendar,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
  ) {
    this.task = new PeriodicTask(this.logger, settings.overdueIntervalMs, () => this.runOnce());
  }

  onApplicationBootstrap(): void {
    if (this.settings.enabled) this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One full scan; returns how many events it emitted. */
  async runOnce(): Promise<number> {
    let emitted = 0;
    for (;;) {
      const { emitted: n, scanned } = await this.batch();
      emitted += n;
      if (scanned < BATCH || this.task.stopped) return emitted;
    }
  }

  private async batch(): Promise<{ emitted: number; scanned: number }> {
    return this.uow.run(async () => {
      // One scan at a time: a scan asked for while another runs waits for it, then reads the
      // dates (so it never ends having looked at a day that is already over).
      await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [SCAN_LOCK]);
      const local = await this.calendar.localDates();
      // No tenant's today is after local.latest (a pre-filter the index serves); then each tenant's own.
      const noticed: { tenant_id: string; invoice_id: string; today: string }[] = await this.uow.query(
        `WITH due AS (
           SELECT i.tenant_id, i.id, i.due_date, t.today FROM invoices i
            CROSS JOIN LATERAL (SELECT ${tenantTodaySql('i.tenant_id', '$3', '$4')} AS today) t
            WHERE i.due_date < $1::date AND ${overdueInvoiceSql('t.today', 'i.')}
              AND NOT EXISTS (SELECT 1 FROM invoice_overdue_notices n
                               WHERE n.tenant_id = i.tenant_id AND n.invoice_id = i.id AND n.due_date = i.due_date)
            ORDER BY i.due_date, i.tenant_id, i.id
            LIMIT $2
            FOR SHARE OF i SKIP LOCKED),
         noticed AS (
           INSERT INTO invoice_overdue_notices (tenant_id, invoice_id, due_date)
           SELECT tenant_id, id, due_date FROM due
           ON CONFLICT DO NOTHING
           RETURNING tenant_id, invoice_id)
         SELECT n.tenant_id, n.invoice_id, to_char(due.today, 'YYYY-MM-DD') AS today
           FROM noticed n JOIN due ON due.tenant_id = n.tenant_id AND due.id = n.invoice_id`,
        [local.latest, BATCH, local.zones, local.dates],
      );
      const now = this.clock.now();
      const events: DomainEvent[] = [];
      for (const row of noticed) {
        const invoice = await this.invoices.findById(row.tenant_id, row.invoice_id);
        if (!invoice) continue;
        events.push({
          type: INVOICE_OVERDUE,
          aggregateType: 'invoice',
          aggregateId: invoice.id,
          tenantId: invoice.tenantId,
          occurredAt: now,
          data: { object: { ...invoice.toJSON(row.today) } },
        });
      }
      await this.outbox.write(this.uow.manager(), events);
      if (events.length > 0) this.logger.log(`${events.length} invoice(s) became overdue`);
      return { emitted: events.length, scanned: noticed.length };
    });
  }
}
