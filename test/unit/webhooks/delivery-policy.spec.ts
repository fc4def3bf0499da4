import fc from 'fast-check';
import { classifyResponse, JITTER_RATIO, nextRetryDelayMs, parseRetryAfter } from '../../../src/modules/webhooks/domain/delivery-policy';

const NOW = new Date('2026-03-01T12:00:00Z');
const SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

describe('delivery policy', () => {
  describe('classifyResponse', () => {
    it('treats every 2xx as success', () => {
      for (const status of [200, 201, 202, 204, 299]) expect(classifyResponse(status, undefined, NOW)).toEqual({ kind: 'success', status });
    });

    it('treats 410 as gone', () => {
      expect(classifyResponse(410, undefined, NOW)).toEqual({ kind: 'gone', status: 410 });
    });

    it('retries 3xx, 4xx and 5xx', () => {
      for (const status of [301, 302, 304, 400, 401, 404, 409, 500, 502, 504]) {
        expect(classifyResponse(status, '10', NOW)).toEqual({ kind: 'retry', status, error: `HTTP ${status}`, retryAfterSeconds: null });
      }
    });

    it('reads Retry-After only on 429 and 503', () => {
      expect(classifyResponse(429, '120', NOW)).toMatchObject({ kind: 'retry', retryAfterSeconds: 120 });
      expect(classifyResponse(503, 'Sun, 01 Mar 2026 12:01:00 GMT', NOW)).toMatchObject({ kind: 'retry', retryAfterSeconds: 60 });
      expect(classifyResponse(500, '120', NOW)).toMatchObject({ retryAfterSeconds: null });
    });
  });

  describe('parseRetryAfter', () => {
    it('reads delay-seconds and HTTP dates', () => {
      expect(parseRetryAfter('0', NOW)).toBe(0);
      expect(parseRetryAfter(' 30 ', NOW)).toBe(30);
      expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', NOW)).toBe(30);
    });

    it('treats a date in the past as now, caps huge values at a day and ignores garbage', () => {
      expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', NOW)).toBe(0);
      expect(parseRetryAfter('99999999', NOW)).toBe(86_400);
      expect(parseRetryAfter(undefined, NOW)).toBeNull();
      expect(parseRetryAfter('-5', NOW)).toBeNull();
      expect(parseRetryAfter('1.5', NOW)).toBeNull();
      expect(parseRetryAfter('soon', NOW)).toBeNull();
      expect(parseRetryAfter('', NOW)).toBeNull();
    });
  });

  describe('nextRetryDelayMs', () => {
    it('follows the schedule: the wait after attempt n is schedule[n-1]', () => {
      const noJitter = () => 0;
      expect(SCHEDULE.map((_, i) => nextRetryDelayMs(SCHEDULE, i + 1, null, noJitter))).toEqual(SCHEDULE.map((s) => s * 1000));
    });

    it('gives up after 1 + schedule.length attempts', () => {
      expect(nextRetryDelayMs(SCHEDULE, SCHEDULE.length + 1)).toBeNull();
      expect(nextRetryDelayMs([], 1)).toBeNull();
      expect(nextRetryDelayMs([0, 0, 1], 3, null, () => 0)).toBe(1000);
      expect(nextRetryDelayMs([0, 0, 1], 4)).toBeNull();
    });

    it('adds up to 20 % jitter and never waits less than the schedule says', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: SCHEDULE.length }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
          const base = SCHEDULE[attempt - 1] * 1000;
          const delay = nextRetryDelayMs(SCHEDULE, attempt, null, () => r)!;
          return delay >= base && delay <= Math.round(base * (1 + JITTER_RATIO));
        }),
      );
    });

    it('spreads retries: two draws of the random source give different waits', () => {
      expect(nextRetryDelayMs(SCHEDULE, 2, null, () => 0.1)).not.toBe(nextRetryDelayMs(SCHEDULE, 2, null, () => 0.9));
    });

    it('waits at least Retry-After, but no less than the schedule', () => {
      expect(nextRetryDelayMs([0, 0, 1], 1, 30, () => 0)).toBe(30_000);
      expect(nextRetryDelayMs(SCHEDULE, 2, 30, () => 0)).toBe(300_000);
      expect(nextRetryDelayMs(SCHEDULE, 1, 0, () => 0)).toBe(5_000);
    });

    it('does not extend the retry budget because of Retry-After', () => {
      expect(nextRetryDelayMs([0], 2, 10)).toBeNull();
    });
  });
});
