import { consoleTable, cpuMarkdown, evaluateTargets, markdownTable, ratio, Row, RunStats, summarize } from '../../../bench/lib/table';

const stats = (rps: number, p99: number, errors = 0): RunStats => ({ rps, p50: p99 / 2, p99, errors, requests: rps * 10, seconds: 10 });

describe('benchmark table arithmetic', () => {
  it('counts only 2xx responses as throughput and every failure as an error', () => {
    const s = summarize({ duration: 10, '2xx': 12_000, non2xx: 300, errors: 5, mismatches: 0, latency: { p50: 3, p99: 17 } });
    expect(s).toEqual({ rps: 1200, p50: 3, p99: 17, errors: 305, requests: 12_305, seconds: 10 });
  });

  it('divides service req/s by baseline req/s, and gives no ratio without a baseline', () => {
    expect(ratio(stats(700, 5), stats(1000, 4))).toBeCloseTo(0.7, 10);
    expect(ratio(stats(700, 5), stats(0, 4))).toBeNull();
    expect(ratio(stats(700, 5), null)).toBeNull();
  });

  it('checks ratio, p99, deep-page and RSS targets at their thresholds', () => {
    const rows: Row[] = [
      { id: 'first', name: 'first page', service: stats(700, 10), baseline: stats(1000, 8), targets: { minRatio: 0.7, maxP99Ms: 50 } },
      { id: 'deep', name: 'deep page', service: stats(690, 12.5), baseline: stats(1000, 8), targets: { minRatio: 0.7, p99Within: { scenario: 'first', factor: 1.2 } } },
      { id: 'slow', name: 'slow read', service: stats(100, 50), baseline: stats(100, 8), targets: { maxP99Ms: 50 } },
    ];
    const results = evaluateTargets(rows, { maxRssMb: 300, peakRssBytes: 299 * 1048576 });
    expect(results.map((r) => [r.scenario, r.met])).toEqual([
      ['first', true], // exactly 0.70×
      ['first', true],
      ['deep', false], // 0.69×
      ['deep', false], // 12.5 ms > 1.2 × 10 ms
      ['slow', false], // 50 ms is not under 50 ms
      ['service', true],
    ]);
    expect(results[1].value).toBe('10 ms');
    expect(results[2].value).toBe('0.69×');
  });

  it('does not count a scenario without a single answer as fast', () => {
    const rows: Row[] = [{ id: 'slow', name: 'slow', service: stats(0, 0), baseline: stats(0, 0), targets: { maxP99Ms: 50, minRatio: 0.7 } }];
    expect(evaluateTargets(rows).map((r) => [r.value, r.met])).toEqual([
      ['n/a', false],
      ['no answer', false],
    ]);
  });

  it('prints one row per scenario with the ratio in the last column', () => {
    const rows: Row[] = [{ id: 'a', name: 'GET /invoices/:id', service: stats(2345.6, 9), baseline: stats(3000, 6), targets: {} }];
    const md = markdownTable(rows).split('\n');
    expect(md).toHaveLength(3);
    expect(md[2]).toBe('| GET /invoices/:id | 2,346 | 4.5 | 9 | 0 | 3,000 | 3 | 6 | 0 | 0.78× |');
    expect(consoleTable(rows).split('\n')[2]).toMatch(/GET \/invoices\/:id\s+2,346\s+4\.5\s+9\s+0\s+3,000\s+3\s+6\s+0\s+0\.78×$/);
  });

  it('lists the CPU per request of each server and of PostgreSQL, with a dash where it was not measured', () => {
    const rows: Row[] = [{ id: 'p', name: 'POST /payments', service: { ...stats(385, 199), cpuMs: 1.184, pgCpuMs: 3.5 }, baseline: { ...stats(3034, 29), cpuMs: 0.15, pgCpuMs: null }, targets: {} }];
    expect(cpuMarkdown(rows).split('\n')[2]).toBe('| POST /payments | 1.18 | 3.50 | 0.15 | - |');
  });
});
