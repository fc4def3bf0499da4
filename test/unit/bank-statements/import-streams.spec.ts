import { loadConfig } from '../../../src/config/config';
import { HostCpuSample, osCpuSampler, procStatSample, StreamController } from '../../../src/modules/bank-statements/infrastructure/import-streams';

/**
 * ADR 0056: the import's stream count follows the host's idle CPU, from samples the test gives (2
 * cores; each step is one second of wall-clock with `idle` cores idle over it).
 */
describe('bank import stream count', () => {
  function host() {
    const now: HostCpuSample = { idleMs: 0, totalMs: 0, cores: 2 };
    return {
      sampler: () => ({ ...now }),
      /** `seconds` of wall-clock pass with `idle` of the 2 cores idle */
      pass(seconds: number, idle: number) {
        now.totalMs += seconds * 1000 * 2;
        now.idleMs += seconds * 1000 * idle;
      },
    };
  }
  const control = { addIdleCores: 0.25, dropIdleCores: 0.1, intervalMs: 1000 };

  it('adds a stream while the host has idle CPU, and drops it when the host is saturated', () => {
    const h = host();
    const c = new StreamController(h.sampler, control);
    c.reset(2, 3);
    expect(c.next()).toBe(2);
    h.pass(1, 0.4); // a quiet host: 0.4 of 2 cores idle with 2 streams
    expect(c.next()).toBe(3);
    h.pass(1, 0.3); // still idle with 3: never more than the most
    expect(c.next()).toBe(3);
    h.pass(1, 0.15); // between the two thresholds: kept
    expect(c.next()).toBe(3);
    h.pass(1, 0.02); // another process took the idle cores
    expect(c.next()).toBe(2);
    h.pass(1, 0); // saturated: never fewer than the fewest
    expect(c.next()).toBe(2);
    h.pass(1, 0.2); // some idle, not enough to add
    expect(c.next()).toBe(2);
  });

  it('decides on intervals of at least intervalMs: shorter ones count toward the next', () => {
    const h = host();
    const c = new StreamController(h.sampler, control);
    c.reset(2, 3);
    h.pass(0.4, 1); // idle, but too short to tell
    expect(c.next()).toBe(2);
    h.pass(0.4, 0);
    expect(c.next()).toBe(2);
    h.pass(0.4, 0); // 1.2 s in all, 0.4 of 1.2 s idle: 0.33 cores
    expect(c.next()).toBe(3);
    expect(c.idleCores).toBeCloseTo(1 / 3, 5);
  });

  it('starts each import at the fewest streams, measuring from its start', () => {
    const h = host();
    const c = new StreamController(h.sampler, control);
    c.reset(2, 3);
    h.pass(1, 1);
    expect(c.next()).toBe(3);
    h.pass(60, 2); // idle between imports: not this import's measure
    c.reset(2, 3);
    expect(c.next()).toBe(2);
    h.pass(1, 0);
    expect(c.next()).toBe(2);
  });

  it('a fixed count never samples', () => {
    const sampler = jest.fn(() => ({ idleMs: 0, totalMs: 0, cores: 2 }));
    const c = new StreamController(sampler, control);
    c.reset(3, 3);
    expect(c.next()).toBe(3);
    expect(sampler).not.toHaveBeenCalled();
  });

  it('BANK_IMPORT_STREAMS: a number is a fixed count; unset or auto, 2 to BANK_IMPORT_MAX_STREAMS (4)', () => {
    const streams = (env: NodeJS.ProcessEnv) => {
      const { bankImportStreams, bankImportMaxStreams } = loadConfig({ NODE_ENV: 'test', ...env });
      return [bankImportStreams, bankImportMaxStreams];
    };
    expect(streams({})).toEqual([2, 4]);
    expect(streams({ BANK_IMPORT_STREAMS: 'auto' })).toEqual([2, 4]);
    expect(streams({ BANK_IMPORT_MAX_STREAMS: '3' })).toEqual([2, 3]);
    expect(streams({ BANK_IMPORT_STREAMS: '2' })).toEqual([2, 2]);
    expect(streams({ BANK_IMPORT_STREAMS: '3', BANK_IMPORT_MAX_STREAMS: '4' })).toEqual([3, 3]);
    expect(streams({ BANK_IMPORT_STREAMS: '1' })).toEqual([1, 1]);
  });

  it("reads /proc/stat's cpu line, I/O wait counted as idle (a stream waiting for its WAL flush leaves its core idle)", () => {
    const text = 'cpu  5026777 3243962 1279019 2057089 85207 0 67821 5293 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n';
    expect(procStatSample(text, 2)).toEqual({
      idleMs: (2057089 + 85207) * 10,
      totalMs: (5026777 + 3243962 + 1279019 + 2057089 + 85207 + 0 + 67821 + 5293) * 10,
      cores: 2,
    });
    expect(() => procStatSample('intr 1 2 3\n', 2)).toThrow();
    // The sampler itself: cumulative, never going back.
    const a = osCpuSampler();
    const b = osCpuSampler();
    expect(b.totalMs).toBeGreaterThanOrEqual(a.totalMs);
    expect(b.idleMs).toBeGreaterThanOrEqual(a.idleMs);
    expect(a.cores).toBeGreaterThan(0);
  });
});
