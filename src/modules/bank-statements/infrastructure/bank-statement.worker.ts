import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { holdLeanHeap } from '../../../shared/infrastructure/lean-heap';
import { type GroupReads, PaymentGroupPlanner } from '../../payments';
import { GroupOutcome, partitionWindow, paymentInput, ProcessBankStatementGroupCommand } from '../application/process-bank-statement-group.command';
import { BankStatementRepository, StagedCredit } from '../domain/bank-statement.repository';
import { BANK_IMPORT_CPU_SAMPLER, DEFAULT_STREAM_CONTROL, type HostCpuSampler, osCpuSampler, StreamController } from './import-streams';

/** Parts per stream and window (each part about half a group: one transaction of a stream). */
const WINDOW_PARTS = 2;

type Plan = { touched: string[][]; reads: GroupReads };

/** A window's credits and their plan, read while the window before it was still recording (ADR 0052). */
interface Planned {
  /** the first position read from: the window is only used when the cursor is there */
  from: number;
  /** the streams the window runs (its size follows: ADR 0056) */
  streams: number;
  /** the lease was renewed for the window (false: lost to another worker) */
  leased: boolean;
  credits: StagedCredit[];
  plan: Plan | null;
  /** the customers that parts of the window before, not yet committed when the reads began, may change */
  stale: ReadonlySet<string>;
}

/**
 * Turns staged bank imports into payments, one import at a time per instance, one group of
 * credits per transaction. An import is taken with a lease (bank_statements.lease_*) renewed by
 * every group: several instances never work on one import, and an import whose worker died (its
 * lease expired) is taken over by any instance — it resumes at its first pending entry. A new
 * import wakes the worker as soon as its transaction commits; otherwise it looks every
 * BANK_IMPORT_POLL_MS.
 */
@Injectable()
export class BankStatementWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BankStatementWorker');
  /** this instance's worker identity (leases name it) */
  private readonly owner = `worker-${randomUUID()}`;
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  /** each window's stream count (ADR 0056): fixed, or following the host's idle CPU */
  private readonly streams: StreamController;

  constructor(
    private readonly statements: BankStatementRepository,
    private readonly commands: TransactionalCommandBus,
    private readonly uow: UnitOfWork,
    private readonly planner: PaymentGroupPlanner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(BANK_IMPORT_CPU_SAMPLER) sampler?: HostCpuSampler,
  ) {
    this.streams = new StreamController(sampler ?? osCpuSampler, DEFAULT_STREAM_CONTROL);
  }

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /** A new import was committed: look now instead of at the next poll. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      try {
        worked = await this.processOne();
      } catch (error) {
        this.logger.error(`bank import failed, to be retried: ${(error as Error).message}`);
      }
      if (!worked && !this.stopped) await this.idle();
    }
  }

  /** Takes one import and works on it until it completes, the lease is lost, or the instance stops. */
  private async processOne(): Promise<boolean> {
    this.kicked = false;
    const claimed = await this.uow.run(() => this.statements.claimNext(this.owner, this.config.bankImportLeaseSeconds));
    if (!claimed) return false;
    const { tenantId, id } = claimed;
    let outcome: GroupOutcome = 'more';
    const releaseHeap = holdLeanHeap();
    // Where this worker's reading of the import has reached: every entry before `from` is processed
    // (a worker taking an import over starts from the start). The pending entries are read from there
    // by the primary key (ADR 0046).
    const cursor = { from: 0 };
    // The next window, read and planned during the current one's last part (ADR 0052).
    const ahead: { next: Promise<Planned> | null } = { next: null };
    const { bankImportStreams: streams, bankImportMaxStreams: most } = this.config;
    this.streams.reset(streams, most ?? streams);
    try {
      while (outcome === 'more' && !this.stopped) {
        outcome = this.config.bankImportSetWise && this.config.bankImportStreams > 1 ? await this.window(tenantId, id, cursor, ahead) : await this.group(tenantId, id, cursor);
      }
    } finally {
      // Reads only: nothing to undo, but they end before the import is handed back (or the pool closes).
      await ahead.next?.catch(() => undefined);
      releaseHeap();
      // Stopping (or failing) halfway: hand the import back so another instance can resume it now.
      if (outcome === 'more') await this.uow.run(() => this.statements.release(tenantId, id, this.owner)).catch(() => undefined);
    }
    if (outcome === 'lease_lost') this.logger.warn(`bank import ${id}: lease lost to another worker`);
    return true;
  }

  /** The import's next group, in one transaction (it renews the lease, and completes the import when nothing is left). */
  private async group(tenantId: string, id: string, cursor: { from: number }, positions?: readonly number[], reads?: ProcessBankStatementGroupCommand['reads']): Promise<GroupOutcome> {
    const { bankImportLeaseSeconds: lease, bankImportGroupSize: size, bankImportSetWise: setWise } = this.config;
    const command = new ProcessBankStatementGroupCommand(tenantId, id, this.owner, lease, size, setWise, positions, reads, { from: cursor.from });
    const outcome = await this.commands.execute<GroupOutcome>(command);
    // Committed: the next group reads on from where this one stopped (a part of a window leaves that to the window).
    if (!positions && command.cursor.next !== undefined) cursor.from = command.cursor.next;
    return outcome;
  }

  /**
   * The next window of credits as parts with no customer (and no identity) in common, recorded in up
   * to BANK_IMPORT_STREAMS concurrent transactions: the same outcome as one after the other (ADR 0037,
   * ADR 0044), on both cores. The lease is renewed once for the window, with its reads (ADR 0052);
   * each part holds it. When a stream finds no part left, it reads and plans the next window while the
   * other streams finish theirs; the credits of that window that may touch a customer of a part not yet
   * committed then are read again once the window has committed, before anything is decided on them.
   */
  private async window(tenantId: string, id: string, cursor: { from: number }, ahead: { next: Promise<Planned> | null }): Promise<GroupOutcome> {
    const early = ahead.next;
    ahead.next = null;
    const read = early && (await early);
    const planned = read && read.from === cursor.from ? read : await this.readAndPlan(tenantId, id, cursor.from, this.streams.next(), new Set());
    if (!planned.leased) return 'lease_lost';
    const { credits, streams } = planned;
    const windowSize = this.windowSize(streams);
    const plan = planned.plan && (await this.reread(tenantId, id, credits, planned.plan, planned.stale));
    const parts = plan ? partitionWindow(credits, plan.touched, streams * WINDOW_PARTS) : [];
    if (parts.length < 2) return this.group(tenantId, id, cursor);
    // The plan's reads serve the streams too (unlocked reads either way: what is chosen is locked and checked).
    const reads = { named: new Map(credits.map((c, i) => [c.position, plan!.reads.named[i]])), payers: plan!.reads.payers };
    const touchedAt = new Map(credits.map((c, i) => [c.position, plan!.touched[i]]));
    // The parts have no customer and no identity in common: any order, any two at once, end the same.
    const queue = [...parts];
    const uncommitted = new Set(parts);
    const results: GroupOutcome[] = [];
    let ended = false;
    const next = credits.length === windowSize ? credits[credits.length - 1].position + 1 : null;
    const readAhead = (): void => {
      if (ended || next === null || ahead.next) return;
      const stale = new Set<string>();
      for (const part of uncommitted) for (const position of part) for (const customer of touchedAt.get(position)!) stale.add(customer);
      // The next window's stream count, from the host's idle CPU since the last count was decided (ADR 0056).
      ahead.next = this.readAndPlan(tenantId, id, next, this.streams.next(), stale);
      ahead.next.catch(() => undefined); // awaited by the next window, or dropped with this one
    };
    const stream = async (): Promise<void> => {
      for (let positions = queue.shift(); positions; positions = queue.shift()) {
        // A failed part (or a lost lease) ends the window: the other stream starts no further part.
        const outcome = await this.group(tenantId, id, cursor, positions, reads).catch((error: unknown) => {
          queue.length = 0;
          ended = true;
          throw error;
        });
        uncommitted.delete(positions);
        results.push(outcome);
        if (outcome === 'lease_lost') {
          queue.length = 0;
          ended = true;
        }
      }
      // Nothing left for this stream in this window: the next one's reads and plan fill its core.
      readAhead();
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.min(streams, parts.length) }, stream));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed || results.includes('lease_lost')) {
      await (ahead.next as Promise<Planned> | null)?.catch(() => undefined);
      ahead.next = null;
    }
    if (failed) throw failed.reason;
    if (results.includes('lease_lost')) return 'lease_lost';
    // Every part committed: every pending entry up to the window's last is processed.
    cursor.from = credits[credits.length - 1].position + 1;
    // The last window: the usual group finds nothing pending and completes the import.
    return next !== null ? 'more' : this.group(tenantId, id, cursor);
  }

  /**
   * The lease renewed for a window, its pending credits from `from`, and their plan (without locks:
   * which customers each may touch, and the reads that told). The renewal and the credits' read do
   * not wait for each other: a part holds the lease in its own transaction, and nothing is decided
   * before both are back.
   */
  private async readAndPlan(tenantId: string, id: string, from: number, streams: number, stale: ReadonlySet<string>): Promise<Planned> {
    const { bankImportLeaseSeconds: lease } = this.config;
    const [leased, credits] = await Promise.all([
      this.uow.run(() => this.statements.renewLease(tenantId, id, this.owner, lease, true)),
      this.statements.pending(tenantId, id, this.windowSize(streams), undefined, from),
    ]);
    const plan = leased && credits.length > 1 ? await this.planner.plan(tenantId, credits.map((c) => paymentInput(id, c))) : null;
    return { from, streams, leased, credits, plan, stale };
  }

  /**
   * WINDOW_PARTS groups' worth per stream, in parts of about a group each, `streams` of them at a time:
   * the window's reads and plan (one core) come half as often per credit, and a stream that ends first
   * takes the next part instead of waiting for the slower one (ADR 0044).
   */
  private windowSize(streams: number): number {
    return (this.config.bankImportGroupSize * streams * WINDOW_PARTS) / 2;
  }

  /**
   * The plan with the credits that may touch a `stale` customer read again (after the parts that
   * could change that customer committed): every decision rests on reads made after the previous
   * window's commits (ADR 0044). Null when the credits read again are too many to plan.
   */
  private async reread(tenantId: string, id: string, credits: readonly StagedCredit[], plan: Plan, stale: ReadonlySet<string>): Promise<Plan | null> {
    const again = stale.size === 0 ? [] : credits.flatMap((_, i) => (plan.touched[i].some((c) => stale.has(c)) ? [i] : []));
    if (again.length === 0) return plan;
    const fresh = await this.planner.plan(tenantId, again.map((i) => paymentInput(id, credits[i])));
    if (!fresh) return null;
    const touched = [...plan.touched];
    const named = [...plan.reads.named];
    again.forEach((i, k) => {
      touched[i] = fresh.touched[k];
      named[i] = fresh.reads.named[k];
    });
    return { touched, reads: { named, payers: new Map([...plan.reads.payers, ...fresh.reads.payers]) } };
  }

  private idle(): Promise<void> {
    if (this.kicked) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.config.bankImportPollMs);
      timer.unref();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}
