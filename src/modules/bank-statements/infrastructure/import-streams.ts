import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The host's CPU time so far, every core summed (ms): how much of it was idle, of how much. */
export interface HostCpuSample {
  idleMs: number;
  totalMs: number;
  /** the host's cores */
  cores: number;
}

/** Where the import's stream count reads the host's CPU time from (the tests give their own samples). */
export type HostCpuSampler = () => HostCpuSample;

export const BANK_IMPORT_CPU_SAMPLER = Symbol('BANK_IMPORT_CPU_SAMPLER');

/**
 * The host's CPU time from /proc/stat's first line (every process of the host counts, this
 * service's and PostgreSQL's included). Time waiting for I/O counts as idle: a core is idle while a
 * process waits for its disk (a stream for its commit's WAL flush, say), and another stream could use
 * it. Where there is no /proc/stat, libuv's `os.cpus()` (which leaves I/O wait out of both).
 */
export const osCpuSampler: HostCpuSampler = () => {
  const cores = cpus().length;
  try {
    return procStatSample(readFileSync('/proc/stat', 'latin1'), cores);
  } catch {
    let idleMs = 0;
    let totalMs = 0;
    for (const { times } of cpus()) {
      idleMs += times.idle;
      totalMs += times.user + times.nice + times.sys + times.idle + times.irq;
    }
    return { idleMs, totalMs, cores };
  }
};

/**
 * /proc/stat's `cpu` line (user nice system idle iowait irq softirq steal …, in clock ticks of 10 ms):
 * idle and iowait are idle; guest time is already in user and nice.
 */
export function procStatSample(text: string, cores: number): HostCpuSample {
  const line = text.slice(0, text.indexOf('\n'));
  const fields = line.split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 8) throw new Error('no cpu line in /proc/stat');
  const ticks = fields.slice(1, 9).map(Number);
  if (ticks.some((t) => !Number.isFinite(t))) throw new Error('no cpu line in /proc/stat');
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = ticks;
  return { idleMs: (idle + iowait) * 10, totalMs: (user + nice + system + idle + iowait + irq + softirq + steal) * 10, cores };
}

export interface StreamControl {
  /** add a stream when at least this many of the host's cores were idle over the last interval */
  addIdleCores: number;
  /** drop a stream when fewer than this many were idle */
  dropIdleCores: number;
  /** the shortest interval decided on (ms of wall-clock, as the samples tell): shorter ones are added to the next */
  intervalMs: number;
}

/** ADR 0056: from 2 streams up to the most (BANK_IMPORT_MAX_STREAMS, 4); one more while at least a quarter of a core stays idle. */
export const DEFAULT_STREAM_CONTROL: StreamControl = { addIdleCores: 0.25, dropIdleCores: 0.1, intervalMs: 1_000 };

/**
 * How many streams the import's next window runs (ADR 0056), like a congestion window: one more
 * while the host had idle CPU over the last interval, one fewer when it had (almost) none. Decided
 * from the host's CPU time between two calls (each window asks once, when its plan is read);
 * a fixed count when min = max.
 */
export class StreamController {
  private streams = 1;
  private min = 1;
  private max = 1;
  private last: HostCpuSample | null = null;
  /** what the last interval measured (for the trace and the tests) */
  idleCores: number | null = null;

  constructor(
    private readonly sampler: HostCpuSampler,
    private readonly control: StreamControl = DEFAULT_STREAM_CONTROL,
  ) {}

  /**
   * Starts an import at the fewest streams, `min` to `max` (a fixed count when equal): what an
   * earlier import measured is not this one's.
   */
  reset(min: number, max: number): void {
    this.min = min;
    this.max = Math.max(min, max);
    this.streams = min;
    this.idleCores = null;
    this.last = this.min < this.max ? this.sampler() : null;
  }

  /** The stream count for the next window. */
  next(): number {
    const { min, max } = this;
    const { addIdleCores, dropIdleCores, intervalMs } = this.control;
    if (min >= max) return min;
    const now = this.sampler();
    const last = this.last;
    if (!last) {
      this.last = now;
      return this.streams;
    }
    const total = now.totalMs - last.totalMs;
    if (total < intervalMs * Math.max(1, now.cores)) return this.streams;
    this.last = now;
    const idleCores = (Math.max(0, now.idleMs - last.idleMs) / total) * now.cores;
    this.idleCores = idleCores;
    if (idleCores >= addIdleCores && this.streams < max) this.streams++;
    else if (idleCores < dropIdleCores && this.streams > min) this.streams--;
    return this.streams;
  }
}
