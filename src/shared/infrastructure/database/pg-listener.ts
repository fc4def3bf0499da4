import { Logger } from '@nestjs/common';
import { Client } from 'pg';

export interface PgListenerOptions {
  /** the NOTIFY channel (a plain identifier) */
  channel: string;
  /** shown in pg_stat_activity and in the log lines */
  name: string;
  /** the notification's payload; undefined after a (re)connect, when anything may have been missed */
  onNotify: (payload: string | undefined) => void;
}

/**
 * LISTEN on one channel over a dedicated connection (a pooled one would be handed to other
 * queries and lose the subscription). On any error it reconnects with backoff and then reports
 * a wake-up, since notifications sent while it was away are lost; `connected` says whether
 * notifications are arriving right now (a cache must not trust itself while they are not).
 */
export class PgListener {
  private readonly logger: Logger;
  private client: Client | null = null;
  private listening = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private backoffMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly options: PgListenerOptions,
  ) {
    this.logger = new Logger(options.name);
  }

  get connected(): boolean {
    return this.listening;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listening = false;
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
      application_name: `receivables-api:${this.options.name}`,
    });
    this.client = client;
    let failed = false;
    const fail = (error?: Error) => {
      if (failed || this.client !== client) return;
      failed = true;
      this.client = null;
      this.listening = false;
      if (!this.stopped) this.logger.warn(`${this.options.channel} listener connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('notification', (message) => this.options.onNotify(message.payload ?? ''));
    client.on('error', fail);
    client.on('end', () => fail());
    try {
      await client.connect();
      await client.query(`LISTEN ${this.options.channel}`);
      if (this.client !== client) return; // stopped meanwhile
      this.backoffMs = 250;
      this.listening = true;
      this.options.onNotify(undefined);
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
