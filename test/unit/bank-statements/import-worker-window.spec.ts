import { ProcessBankStatementGroupCommand } from '../../../src/modules/bank-statements/application/process-bank-statement-group.command';
import { StagedCredit } from '../../../src/modules/bank-statements/domain/bank-statement.repository';
import { BankStatementWorker } from '../../../src/modules/bank-statements/infrastructure/bank-statement.worker';
import { HostCpuSample, HostCpuSampler } from '../../../src/modules/bank-statements/infrastructure/import-streams';

/**
 * The worker's windows (ADR 0044, ADR 0052) with the database, the planner and the parts' transactions
 * replaced: each part's transaction ends when the test says so, so what runs while a part is still
 * uncommitted is seen as it happens, not by timing.
 */
describe('bank import worker windows', () => {
  const credit = (position: number, customer: string): StagedCredit => ({
    position,
    account: 'DE89370400440532013000',
    key: `k${position}`,
    bankEntryId: `e${position}`,
    amount: 100,
    currency: 'eur',
    bookingDate: '2026-11-05',
    method: 'other',
    payer: { name: null, account: null, bankId: null },
    reference: customer, // the fake planner's customer of the credit
    remittance: [],
  });

  interface Deferred {
    resolve: (outcome: 'more') => void;
    promise: Promise<'more'>;
  }
  const deferred = (): Deferred => {
    let resolve!: (outcome: 'more') => void;
    const promise = new Promise<'more'>((r) => (resolve = r));
    return { resolve, promise };
  };

  /** A worker over `credits` (groups of 2, 2 streams: windows of 4 credits in up to 4 parts). */
  function harness(credits: StagedCredit[], hold: (positions: readonly number[]) => boolean, adaptive?: { max: number; sampler: HostCpuSampler }) {
    const log: string[] = [];
    const held = new Map<string, Deferred>();
    const parts: ProcessBankStatementGroupCommand[] = [];
    let plans = 0;
    const statements = {
      claimNext: async () => ({ tenantId: 't', id: 'bst_1' }),
      renewLease: async () => true,
      release: async () => undefined,
      pending: async (_t: string, _id: string, limit: number, _positions: unknown, from = 0) => {
        log.push(`read ${from}`);
        return credits.filter((c) => c.position >= from).slice(0, limit);
      },
    };
    const planner = {
      plan: async (_t: string, inputs: { reference: string | null }[]) => {
        const call = ++plans;
        log.push(`plan ${inputs.map((i) => i.reference).join(',')}`);
        return {
          touched: inputs.map((i) => [i.reference!]),
          reads: { named: inputs.map(() => [{ id: `plan${call}` }]), payers: new Map() },
        };
      },
    };
    const commands = {
      execute: async (command: ProcessBankStatementGroupCommand) => {
        if (!command.positions) return 'completed';
        parts.push(command);
        const name = command.positions.join(',');
        log.push(`part ${name}`);
        if (hold(command.positions)) {
          const d = deferred();
          held.set(name, d);
          await d.promise;
        }
        log.push(`committed ${name}`);
        return 'more';
      },
    };
    const uow = { run: <T>(work: () => Promise<T>) => work() };
    const config = { workersEnabled: false, bankImportLeaseSeconds: 30, bankImportPollMs: 1000, bankImportGroupSize: 2, bankImportSetWise: true, bankImportStreams: 2, bankImportMaxStreams: adaptive?.max ?? 2 };
    const worker = new BankStatementWorker(statements as never, commands as never, uow as never, planner as never, config as never, adaptive?.sampler);
    const inside = worker as unknown as { stopped: boolean; processOne(): Promise<boolean> };
    inside.stopped = false; // running, as after bootstrap (whose loop the test replaces)
    const run = inside.processOne();
    /** Lets every promise that can settle settle (no timers: the fakes never wait on anything else). */
    const settle = async () => {
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    };
    return { log, held, parts, run, settle };
  }

  it('reads and plans the next window while the current window\'s last part is still recording', async () => {
    const credits = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((customer, i) => credit(i, `cus_${customer}`));
    const { log, held, run, settle } = harness(credits, (positions) => positions.includes(3));
    await settle();
    // Parts 0, 1 and 2 committed; 3 holds its transaction open: the next window is read and planned now.
    expect(held.has('3')).toBe(true);
    expect(log).toContain('read 4');
    expect(log).toContain('plan cus_e,cus_f,cus_g,cus_h');
    expect(log).not.toContain('part 4');
    held.get('3')!.resolve('more');
    await run;
    // Nothing of the next window was recorded before the window before it had committed whole.
    expect(log.indexOf('part 4')).toBeGreaterThan(log.indexOf('committed 3'));
  });

  it('reads again, after the commit, the credits of the next window that may touch a customer of a part not yet committed', async () => {
    // Credit 5 pays cus_d's invoice, as credit 3 (still recording when the next window is planned) does.
    const credits = ['a', 'b', 'c', 'd', 'e', 'd', 'g', 'h'].map((customer, i) => credit(i, `cus_${customer}`));
    const { log, held, parts, run, settle } = harness(credits, (positions) => positions.includes(3));
    await settle();
    expect(log).toContain('plan cus_e,cus_d,cus_g,cus_h');
    held.get('3')!.resolve('more');
    await run;
    // Read again once 3 had committed, and before its part started; only it.
    const again = log.indexOf('plan cus_d');
    expect(again).toBeGreaterThan(log.indexOf('committed 3'));
    expect(again).toBeLessThan(log.indexOf('part 5'));
    // Each credit of the next window is decided on its freshest reads.
    const readsOf = (position: number) => (parts.find((p) => p.positions!.includes(position))!.reads!.named.get(position) as unknown as { id: string }[])[0].id;
    expect(readsOf(5)).toBe('plan3');
    expect(readsOf(4)).toBe('plan2');
    expect(readsOf(6)).toBe('plan2');
  });

  it('runs a third stream in a window after the host had idle CPU, and two again after it had none (ADR 0056)', async () => {
    const credits = Array.from({ length: 16 }, (_, i) => credit(i, `cus_${i}`));
    // The host's CPU time at each sample the worker takes (2 cores): the import's start and its first
    // window's count (no time passed: 2 streams), then one second with half a core idle (3 streams),
    // then one second with none (2), then too short an interval to tell (2 kept).
    const samples: HostCpuSample[] = [
      { idleMs: 0, totalMs: 0, cores: 2 },
      { idleMs: 0, totalMs: 0, cores: 2 },
      { idleMs: 500, totalMs: 2000, cores: 2 },
      { idleMs: 500, totalMs: 4000, cores: 2 },
    ];
    let taken = 0;
    const sampler = () => samples[Math.min(taken++, samples.length - 1)];
    const { log, held, run, settle } = harness(credits, (positions) => positions[0] >= 4 && positions[0] <= 6, { max: 3, sampler });
    await settle();
    // The second window: 3 groups' worth (6 credits from 4), three parts recording at once.
    expect([...held.keys()].sort()).toEqual(['4', '5', '6']);
    for (const d of held.values()) d.resolve('more');
    await run;
    expect(log.filter((l) => l.startsWith('read ')).map((l) => Number(l.slice(5)))).toEqual([0, 4, 10, 14]);
    // Windows of 2, 3, 2 and 2 streams' size (the last one what was left), nothing recorded twice.
    expect(log.filter((l) => l.startsWith('part ')).length).toBe(16);
  });
});
