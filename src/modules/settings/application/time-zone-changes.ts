import { Injectable } from '@nestjs/common';

export type TimeZoneChangeHandler = (tenantId: string) => Promise<void>;

/**
 * Who must know, inside the transaction that changes it, that a tenant's time zone changed:
 * figures stored as of "today" (customers' overdue figures) are then as of the wrong day.
 * Modules subscribe at start-up; the settings module depends on none of them.
 */
@Injectable()
export class TimeZoneChanges {
  private readonly handlers: TimeZoneChangeHandler[] = [];

  subscribe(handler: TimeZoneChangeHandler): void {
    this.handlers.push(handler);
  }

  async changed(tenantId: string): Promise<void> {
    for (const handler of this.handlers) await handler(tenantId);
  }
}
