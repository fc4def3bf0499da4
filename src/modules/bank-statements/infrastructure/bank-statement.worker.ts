import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { holdLeanHeap } from '../../../shared/infrastructure/lean-heap';
import { PaymentGroupPlanner } from '../../payments';
import { GroupOutcome, partitionWindow, paymentInput, ProcessBankStatementGroupCommand } from '../application/process-bank-statement-group.command';
import { BankStatementRepository } from '../domain/bank-statement.repository';

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

  constructor(
    private readonly statements: BankStatementRepository,
    private readonly commands: TransactionalCommandBus,
    private readonly uow: UnitOfWork,
    private readonly planner: PaymentGroupPlanner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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
    try {
      while (outcome === 'more' && !this.stopped) {
        outcome = this.config.bankImportSetWise && this.config.bankImportStreams > 1 ? await this.window(tenantId, id) : await this.group(tenantId, id);
      }
    } finally {
      releaseHeap();
      // Stopping (or failing) halfway: hand the import back so another instance can resume it now.
      if (outcome === 'more') await this.uow.run(() => this.statements.release(tenantId, id, this.owner)).catch(() => undefined);
    }
    if (outcome === 'lease_lost') this.logger.warn(`bank import ${id}: lease lost to another worker`);
    return true;
  }

  /** The import's next group, in one transaction (it renews the lease, and completes the import when nothing is left). */
  private group(tenantId: string, id: string, positions?: readonly number[], reads?: ProcessBankStatementGroupCommand['reads']): Promise<GroupOutcome> {
    const { bankImportLeaseSeconds: lease, bankImportGroupSize: size, bankImportSetWise: setWise } = this.config;
    return this.commands.execute<GroupOutcome>(new ProcessBankStatementGroupCommand(tenantId, id, this.owner, lease, size, setWise, positions, reads));
  }

  /**
   * The next group's worth of credits as up to BANK_IMPORT_STREAMS streams with no customer (and no
   * identity) in common, recorded in concurrent transactions: the same outcome as one after the
   * other (ADR 0037), on both cores. The lease is renewed once for the window; each stream holds it.
   */
  private async window(tenantId: string, id: string): Promise<GroupOutcome> {
    const { bankImportLeaseSeconds: lease, bankImportGroupSize: size, bankImportStreams: streams } = this.config;
    if (!(await this.uow.run(() => this.statements.renewLease(tenantId, id, this.owner, lease)))) return 'lease_lost';
    const credits = await this.statements.pending(tenantId, id, size);
    const plan = credits.length > 1 ? await this.planner.plan(tenantId, credits.map((c) => paymentInput(id, c))) : null;
    const parts = plan ? partitionWindow(credits, plan.touched, streams) : [];
    if (parts.length < 2) return this.group(tenantId, id);
    // The plan's reads serve the streams too (unlocked reads either way: what is chosen is locked and checked).
    const reads = { named: new Map(credits.map((c, i) => [c.position, plan!.reads.named[i]])), payers: plan!.reads.payers };
    const settled = await Promise.allSettled(parts.map((positions) => this.group(tenantId, id, positions, reads)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (settled.some((s) => s.status === 'fulfilled' && s.value === 'lease_lost')) return 'lease_lost';
    // The last window: the usual group finds nothing pending and completes the import.
    return credits.length === size ? 'more' : this.group(tenantId, id);
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
