import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { PgListener, PgNotifications } from '../../../shared/infrastructure/database/pg-listener';
import { OUTBOX_CHANNEL } from '../../../shared/infrastructure/outbox/outbox.writer';
import { classifyResponse, nextRetryDelayMs } from '../domain/delivery-policy';
import { signingSecrets } from '../domain/webhook-endpoint.aggregate';
import { ClaimedDelivery, DELIVERIES_NOTICE, DeliveryOutcome, DeliveryStore } from './delivery-store';
import { RelayDatabase } from './relay-database';
import { RELAY_SETTINGS, RelaySettings } from './relay-settings';
import { WebhookHttpClient } from './webhook-http-client';
import { envelopeBody, webhookHeaders } from './webhook-signer';
import { WebhookUrlGuard } from './webhook-url-guard';

interface InFlight {
  done: Promise<void>;
  abort: AbortController;
}

interface Completion {
  delivery: ClaimedDelivery;
  outcome: DeliveryOutcome;
}

/**
 * The outbox relay: one loop per instance that (1) fans new outbox rows out into deliveries
 * (only after an outbox NOTIFY, a reconnect or the poll), (2) claims due deliveries up to its
 * free slots and starts sending them without waiting, (3) sleeps until woken by NOTIFY, by a
 * finished send, by the next due time or by the slow poll. Sends run concurrently with their own
 * timeouts and each endpoint has a cap on its share of the slots, so a slow receiver never holds
 * up the others. Results are written in batches: whatever finished while the previous write was
 * running goes into the next one.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookRelay');
  /** identifies this instance's leases; random so a restarted process never inherits old ones */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /**
   * Attempts this instance has sent, passes it made over the outbox, and looks it took at the
   * deliveries (a claim with the read of what falls due next), for tests and benchmarks.
   */
  readonly stats = { attempts: 0, fanOuts: 0, looks: 0 };
  private readonly inFlight = new Map<string, InFlight>();
  private readonly http: WebhookHttpClient;
  private listener: PgListener | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  /** the outbox may hold rows not fanned out yet */
  private outboxDirty = true;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private completions: Completion[] = [];
  private writing: Promise<void> | null = null;
  /** an open coalescing window: commits' notifications gathered for one pass when it closes */
  private coalesceTimer: NodeJS.Timeout | null = null;
  /** a window closed since the last pass: its pass is due, whatever opened since */
  private windowClosed = false;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** when this instance last recorded its heartbeat (0: not since it started) */
  private lastBeat = 0;
  private lastFanOut = 0;
  /**
   * When a look at the deliveries found none pending anywhere (0: not known). Until a delivery is
   * written nothing can be claimed or fall due, so passes skip the look; every writer of a pending
   * delivery notifies 'deliveries' at its commit, which ends this, and it lasts one poll interval
   * at most, in case some writer does not.
   */
  private nothingPendingSince = 0;
  /** 'deliveries' notices and reconnects so far: one arriving during a look makes its "nothing" unsure */
  private deliveryNews = 0;

  constructor(
    private readonly store: DeliveryStore,
    private readonly db: RelayDatabase,
    private readonly guard: WebhookUrlGuard,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
    private readonly notifications: PgNotifications,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.http = new WebhookHttpClient(`receivables-api-webhooks/${config.version}`, settings.concurrency);
  }

  onApplicationBootstrap(): void {
    if (this.settings.enabled) this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.outboxDirty = true;
    this.nothingPendingSince = 0;
    this.listener = this.notifications.listener({
      channel: OUTBOX_CHANNEL,
      onNotify: (payload) => {
        if (payload !== '') this.deliveriesMayBePending();
        if (payload === DELIVERIES_NOTICE) return this.wake();
        this.outboxDirty = true;
        // Every commit notifies; under load, waiting a few milliseconds fans out the events of many
        // commits in one pass instead of a pass (seven statements with the claim that follows) per
        // commit, and a window opened soon after the last pass lasts until passIntervalMs after it.
        const wait = Math.max(this.settings.coalesceMs, this.lastFanOut + this.settings.passIntervalMs - Date.now());
        if (payload === undefined || wait <= 0) return this.wake();
        this.coalesceTimer ??= setTimeout(() => {
          this.coalesceTimer = null;
          this.windowClosed = true;
          this.wake();
        }, wait);
      },
    });
    this.listener.start();
    this.lastBeat = 0;
    this.heartbeatTimer = setInterval(() => void this.beat().catch(() => undefined), this.settings.heartbeatMs);
    this.heartbeatTimer.unref();
    this.loop = this.run();
  }

  /** Records that this instance is alive; its leases count (and are safe from others) only while it does. */
  private async beat(): Promise<void> {
    const started = Date.now();
    try {
      await this.store.heartbeat(this.owner);
      this.lastBeat = Math.max(this.lastBeat, started);
    } catch (error) {
      this.logger.warn(`relay heartbeat failed: ${(error as Error).message}`);
      throw error;
    }
  }

  /**
   * Stops claiming, lets in-flight attempts finish for up to the grace period, then aborts the
   * rest and hands them back (due at once) for another instance or the next start.
   */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    await this.listener?.stop();
    this.listener = null;
    if (this.coalesceTimer) clearTimeout(this.coalesceTimer);
    this.coalesceTimer = null;
    if (this.inFlight.size > 0) {
      const grace = setTimeout(() => this.inFlight.forEach((f) => f.abort.abort()), this.settings.shutdownGraceMs);
      await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
      clearTimeout(grace);
    }
    await this.writing;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    // Every lease is handed back or recorded by now: nothing of this instance needs to count.
    await this.store.forgetInstance(this.owner).catch(() => undefined);
    await this.db.close();
    this.http.close();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** A delivery may have been written (a 'deliveries' notice, a reconnect that may have missed one, an error). */
  private deliveriesMayBePending(): void {
    this.deliveryNews++;
    this.nothingPendingSince = 0;
  }

  /** Whether the last look found nothing pending, recently enough to go without another. */
  private nothingPending(): boolean {
    return this.nothingPendingSince > 0 && Date.now() - this.nothingPendingSince < this.settings.pollIntervalMs && this.inFlight.size === 0;
  }

  private async run(): Promise<void> {
    let errors = 0;
    while (!this.stopping) {
      try {
        let fullBatch = false;
        // While a window is open, a wake for something else (a send finished, a retry due) does not
        // fan out the window's commits early: they wait for its pass, one per window however busy.
        if (this.outboxDirty && (this.windowClosed || this.coalesceTimer === null)) {
          this.outboxDirty = false;
          this.windowClosed = false;
          this.lastFanOut = Date.now();
          this.stats.fanOuts++;
          const fanned = await this.store.fanOut(this.settings.batchSize);
          fullBatch = fanned.events === this.settings.batchSize;
          if (fullBatch) this.outboxDirty = true;
          if (fanned.deliveries > 0) this.deliveriesMayBePending();
        }
        // No delivery pending anywhere at the last look, and none written since: a claim and the
        // read of what falls due would find nothing. Sleep until the look is due again (or a wake).
        if (this.nothingPending()) {
          if (this.stopping) break;
          if (fullBatch) continue;
          await this.sleep(this.nothingPendingSince + this.settings.pollIntervalMs - Date.now());
          continue;
        }
        this.stats.looks++;
        const free = this.settings.concurrency - this.inFlight.size;
        // Never claim on a heartbeat others may already consider stale (first pass, database trouble).
        if (free > 0 && Date.now() - this.lastBeat > this.settings.deadAfterMs / 2) await this.beat();
        const claimed = free > 0 ? await this.store.claim(this.owner, free) : [];
        for (const delivery of claimed) this.dispatch(delivery);
        errors = 0;
        if (this.stopping) break;
        // A full batch means more is probably waiting: go round again at once.
        if (fullBatch || (claimed.length > 0 && claimed.length === free)) continue;
        await this.sleep(await this.sleepMs(claimed.length));
      } catch (error) {
        errors++;
        this.outboxDirty = true;
        this.deliveriesMayBePending();
        this.logger.error(`relay iteration failed: ${(error as Error).message}`);
        await this.sleep(Math.min(250 * 2 ** errors, 10_000));
      }
    }
  }

  /**
   * How long the loop may sleep: until the next retry falls due, or until a lease that holds
   * back due work stops counting (it expires, its owner's heartbeat goes stale, a dead owner's
   * request can no longer be running), at most the poll interval. Work due now but not claimed
   * waits for a finished send of this instance (which wakes the loop) or for such a change.
   */
  private async sleepMs(claimed: number): Promise<number> {
    const news = this.deliveryNews;
    const asked = Date.now();
    const { due, change, leased } = await this.store.nextDueAt();
    // Nothing pending, claimed or leased by anyone, and no delivery notified meanwhile (its commit
    // may have come after this read's snapshot): nothing to claim until a writer notifies.
    if (due === null && !leased && claimed === 0 && this.inFlight.size === 0 && this.deliveryNews === news) this.nothingPendingSince = asked;
    const now = Date.now();
    let wait = this.settings.pollIntervalMs;
    if (due) {
      const untilDue = due.getTime() - now;
      if (untilDue > 0) wait = Math.min(wait, untilDue + 5);
      else if (claimed > 0) return 0;
    }
    if (change) wait = Math.min(wait, Math.max(change.getTime() - now, 0) + 5);
    return wait;
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping || ms <= 0) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (timedOut: boolean) => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.woken = false;
        // A poll interval without a pass over the outbox: look at it too, in case a NOTIFY was lost.
        if (timedOut && Date.now() - this.lastFanOut >= this.settings.pollIntervalMs) this.outboxDirty = true;
        resolve();
      };
      const timer = setTimeout(() => done(true), ms);
      this.wakeUp = () => done(false);
    });
  }

  /**
   * Sends one attempt in the background. Its slot is free again as soon as the receiver has
   * answered; recording the result follows in the next batch write. Until then the row keeps
   * its lease, so no other instance can take it and it still counts against its endpoint's cap.
   */
  private dispatch(delivery: ClaimedDelivery): void {
    this.stats.attempts++;
    const abort = new AbortController();
    const done = this.attempt(delivery, abort.signal)
      .then((outcome) => this.record({ delivery, outcome }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, { done, abort });
  }

  /** Queues a result; one write at a time carries every result queued meanwhile. */
  private record(completion: Completion): void {
    this.completions.push(completion);
    if (!this.writing) this.writing = this.writeResults();
  }

  private async writeResults(): Promise<void> {
    while (this.completions.length > 0) {
      const batch = this.completions.splice(0, 500);
      try {
        const recorded = await this.store.complete(this.owner, batch);
        for (const c of batch) {
          if (!recorded.has(c.delivery.id)) this.logger.warn(`delivery ${c.delivery.id}: lease lost before its result was recorded`);
        }
      } catch (error) {
        // The leases expire and the attempts are made again: at least once, never lost.
        this.logger.error(`could not record ${batch.length} delivery result(s): ${(error as Error).message}`);
      }
      // Recorded results free endpoint shares and may make retries due at once.
      this.wake();
    }
    this.writing = null;
  }

  /** Sends one attempt and decides what follows; never throws. */
  private async attempt(d: ClaimedDelivery, signal: AbortSignal): Promise<DeliveryOutcome> {
    if (!d.endpointEnabled) return { kind: 'skipped', error: 'endpoint disabled' };
    const now = new Date();
    const body = envelopeBody({ id: d.eventId, type: d.eventType, createdAt: d.eventCreatedAt, data: d.data });
    const headers = webhookHeaders(d.eventId, now, body, signingSecrets(d, now));
    let status: number | null = null;
    let error: string;
    let retryAfterSeconds: number | null = null;
    try {
      const url = new URL(d.url);
      this.guard.assertDeliverable(url);
      const answer = await this.http.post({ url, body, headers, timeoutMs: this.settings.timeoutMs, lookup: this.guard.lookup, signal });
      const result = classifyResponse(answer.status, answer.retryAfter, new Date());
      if (result.kind === 'success') return { kind: 'succeeded', status: result.status };
      if (result.kind === 'gone') return { kind: 'gone' };
      ({ status, error, retryAfterSeconds } = result);
    } catch (e) {
      if (signal.aborted) return { kind: 'released', error: 'interrupted: the sending instance shut down during the attempt' };
      error = describe(e);
    }
    const delayMs = nextRetryDelayMs(this.settings.retrySchedule, d.attempt, retryAfterSeconds);
    return delayMs === null ? { kind: 'failed', status, error } : { kind: 'retry', status, error, delayMs };
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 497)}...` : message;
}
