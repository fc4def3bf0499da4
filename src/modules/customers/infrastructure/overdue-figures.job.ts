import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { PeriodicTask, positiveIntFromEnv } from '../../../shared/infrastructure/scheduling/periodic-task';
import { TenantCalendar } from '../../settings';

const BATCH = 500;

/**
 * Moves the customers' stored overdue figures to today as the calendar passes due dates (ADR 17).
 * The figures are kept by triggers as of each row's `overdue_as_of`; they hold until
 * `overdue_refresh_on`. This job sets `overdue_as_of` to today on the rows that went stale (or
 * are ahead of today, after a clock or time-zone change) and the row trigger recounts them.
 * Until it has run, readers compute overdue from the open invoices instead (never writing):
 * the job only keeps the customer list's overdue sort and filter on their index.
 * Rows are locked in id order in short batches; several instances may run it at once.
 */
@Injectable()
export class OverdueFiguresJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OverdueFiguresJob');
  private readonly task: PeriodicTask;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly calendar: TenantCalendar,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(this.logger, positiveIntFromEnv('OVERDUE_FIGURES_SCAN_MS', 60_000), () => this.runOnce());
  }

  onApplicationBootstrap(): void {
    if (this.config.workersEnabled) this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Every tenant's stale customers; returns how many rows were moved. */
  async runOnce(): Promise<number> {
    const tenants = await this.uow.query<{ id: string }>(`SELECT id FROM tenants ORDER BY id`);
    let moved = 0;
    for (const { id } of tenants) {
      if (this.task.stopped) break;
      moved += await this.advance(id, await this.calendar.today(id));
    }
    return moved;
  }

  /** Moves one tenant's stale customers to `today` (the tenant's business date, in its time zone). */
  async advance(tenantId: string, today: string): Promise<number> {
    let moved = 0;
    for (;;) {
      const [{ n }] = await this.uow.run(() =>
        this.uow.query<{ n: number }>(
          `WITH moved AS (
             UPDATE customers c SET overdue_as_of = $2::date
              WHERE c.tenant_id = $1 AND c.id IN (
                    SELECT id FROM customers
                     WHERE tenant_id = $1 AND (overdue_refresh_on <= $2::date OR overdue_as_of > $2::date)
                     ORDER BY id LIMIT ${BATCH} FOR UPDATE)
             RETURNING 1)
           SELECT count(*)::int AS n FROM moved`,
          [tenantId, today],
        ),
      );
      moved += n;
      if (n < BATCH) return moved;
    }
  }
}
