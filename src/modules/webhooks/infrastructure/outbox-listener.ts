import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { OUTBOX_CHANNEL } from '../../../shared/infrastructure/outbox/outbox.writer';

/**
 * LISTEN on the outbox channel over a dedicated connection (a pooled one would be handed to
 * other queries and lose the subscription). On any error it reconnects with backoff and then
 * reports a wake-up, since notifications sent while it was away are lost; the relay's slow
 * poll covers whatever else slips through.
 */
export class OutboxListener {
  private readonly logger = new Logger('WebhookRelay');
  private client: Client | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private backoffMs = 250;

  constructor(
    private readonly databaseUrl: string,
    /** the notification's payload; undefined after a (re)connect, when anything may have been missed */
    private readonly onNotify: (payload: string | undefined) => void,
  ) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      application_name: 'receivables-api:webhook-listener',
    });
    this.client = client;
    let failed = false;
    const fail = (error?: Error) => {
      if (failed || this.client !== client) return;
      failed = true;
      this.client = null;
      if (!this.stopped) this.logger.warn(`outbox listener connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('notification', (message) => this.onNotify(message.payload ?? ''));
    client.on('error', fail);
    client.on('end', () => fail());
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.backoffMs = 250;
      this.onNotify(undefined);
    } catch (error) {
      fail(error as Error);
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
