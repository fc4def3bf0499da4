import { Logger } from '@nestjs/common';

/**
 * Runs a scheduled job's pass every `intervalMs` in this instance: the first one soon after
 * start (at most 1 s), the next one `intervalMs` after the previous one ended, so passes never
 * overlap within an instance (several instances coordinate in the database). A failed pass is
 * logged and the schedule goes on. `stop()` waits for the pass in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<unknown>,
  ) {}

  /** Whether `stop()` was called: a long pass (also one run by hand) checks it between batches. */
  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.schedule(Math.min(1_000, this.intervalMs));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch((error) => this.logger.error(`scheduled pass failed: ${(error as Error).message}`))
        .finally(() => {
          this.running = null;
          if (!this.stopping) this.schedule(this.intervalMs);
        });
    }, delayMs);
  }
}

/** A positive integer from the environment (a scan interval, a batch size), or `fallback` when unset. */
export function positiveIntFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}
