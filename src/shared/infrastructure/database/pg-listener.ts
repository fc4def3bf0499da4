import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DATABASE_URL } from './database.tokens';

export interface PgListenerOptions {
  /** the NOTIFY channel (a plain identifier) */
  channel: string;
  /** the notification's payload; undefined after a (re)connect, when anything may have been missed */
  onNotify: (payload: string | undefined) => void;
}

/** The application name of an instance's LISTEN connection (pg_stat_activity). */
export const LISTENER_APPLICATION_NAME = 'receivables-api:listener';

/**
 * One LISTEN connection per instance, for every channel its parts listen on (ADR 0050). PostgreSQL
 * wakes every backend that LISTENs in a database on each NOTIFY, whatever the channel (each then
 * reads the queue and keeps what is its own), and every command's commit notifies the outbox
 * channel: with a connection per channel, each commit woke three backends. Opened when the first
 * listener starts, closed when the last one stops.
 */
@Injectable()
export class PgNotifications {
  private readonly logger = new Logger('PgNotifications');
  private readonly listeners = new Set<PgListener>();
  private client: Client | null = null;
  /** the channels LISTENed on the current connection */
  private listening = new Set<string>();
  private retryTimer: NodeJS.Timeout | null = null;
  private backoffMs = 250;

  constructor(@Inject(DATABASE_URL) private readonly databaseUrl: string) {}

  /** A listener on one channel of this instance's connection; nothing is sent before `start()`. */
  listener(options: PgListenerOptions): PgListener {
    return new PgListener(this, options);
  }

  /** @internal */
  add(listener: PgListener): void {
    this.listeners.add(listener);
    if (this.client === null && this.retryTimer === null) void this.connect();
    else if (this.client !== null && this.listening.size > 0) void this.listenOn(this.client, listener);
  }

  /** @internal */
  async remove(listener: PgListener): Promise<void> {
    this.listeners.delete(listener);
    if (this.listeners.size > 0) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    this.listening = new Set();
    await client?.end().catch(() => undefined);
  }

  /** LISTENs on a listener's channel once the connection is up (if not yet), then tells it to catch up. */
  private async listenOn(client: Client, listener: PgListener): Promise<void> {
    try {
      if (!this.listening.has(listener.channel)) {
        await client.query(`LISTEN ${listener.channel}`);
        this.listening.add(listener.channel);
      }
      if (this.client !== client || !this.listeners.has(listener)) return;
      listener.up();
    } catch {
      // The connection's own error handler reconnects, and every listener catches up then.
    }
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.listeners.size === 0) return;
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true, application_name: LISTENER_APPLICATION_NAME });
    this.client = client;
    this.listening = new Set();
    let failed = false;
    const fail = (error?: Error) => {
      if (failed || this.client !== client) return;
      failed = true;
      this.client = null;
      this.listening = new Set();
      for (const l of this.listeners) l.down();
      if (this.listeners.size > 0) {
        this.logger.warn(`listener connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
        this.scheduleReconnect();
      }
      client.end().catch(() => undefined);
    };
    client.on('notification', (message) => {
      for (const l of this.listeners) if (l.channel === message.channel) l.notify(message.payload ?? '');
    });
    client.on('error', fail);
    client.on('end', () => fail());
    try {
      await client.connect();
      const channels = [...new Set([...this.listeners].map((l) => l.channel))];
      // One round trip for every channel: LISTEN takes no parameters, and the names are identifiers of ours.
      if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${c}`).join('; '));
      if (this.client !== client) return; // stopped meanwhile
      channels.forEach((c) => this.listening.add(c));
      this.backoffMs = 250;
      // Listeners added while the LISTENs were on their way get theirs now.
      for (const l of [...this.listeners]) void this.listenOn(client, l);
    } catch (error) {
      fail(error as Error);
    }
  }

  private scheduleReconnect(): void {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}

/**
 * LISTEN on one channel over the instance's LISTEN connection (a pooled one would be handed to
 * other queries and lose the subscription). When that connection is lost it is reconnected with
 * backoff, and each listener then reports a wake-up (`onNotify(undefined)`), since notifications
 * sent meanwhile are lost; `connected` says whether notifications are arriving right now (a cache
 * must not trust itself while they are not).
 */
export class PgListener {
  private listening = false;
  private started = false;

  constructor(
    private readonly hub: PgNotifications,
    private readonly options: PgListenerOptions,
  ) {}

  get channel(): string {
    return this.options.channel;
  }

  get connected(): boolean {
    return this.listening;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.hub.add(this);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.listening = false;
    await this.hub.remove(this);
  }

  /** @internal the connection LISTENs on this channel (again): anything sent before may have been missed */
  up(): void {
    if (!this.started) return;
    this.listening = true;
    this.options.onNotify(undefined);
  }

  /** @internal */
  down(): void {
    this.listening = false;
  }

  /** @internal */
  notify(payload: string): void {
    if (this.listening) this.options.onNotify(payload);
  }
}
