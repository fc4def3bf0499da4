import fc from 'fast-check';
import { addDays, daysBetween, FixedClock, isDateString, SystemClock, toDateString } from '../../../../src/shared/domain/clock';

describe('clock', () => {
  it.each(['2026-01-31', '2024-02-29', '2026-12-31', '2000-02-29', '1999-01-01'])('accepts the calendar date %s', (d) => {
    expect(isDateString(d)).toBe(true);
  });

  it.each([
    '2026-02-30',
    '2026-02-29', // not a leap year
    '1900-02-29', // century, not a leap year
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-05',
    '26-01-05',
    '2026-01-05T00:00:00Z',
    ' 2026-01-05',
    '2026/01/05',
    '',
    20260105,
    null,
    undefined,
  ])('refuses %p', (d) => {
    expect(isDateString(d)).toBe(false);
  });

  it.each([
    ['2026-01-31', 1, '2026-02-01'],
    ['2026-02-28', 1, '2026-03-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2026-01-01', -1, '2025-12-31'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2026-01-15', 30, '2026-02-14'],
    ['2026-11-22', 0, '2026-11-22'],
    ['2024-01-01', 366, '2025-01-01'],
  ])('addDays(%s, %d) = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it('daysBetween is the inverse of addDays (UTC: no daylight-saving gaps)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -4000, max: 4000 }),
        (instant, days) => {
          const from = toDateString(instant);
          const to = addDays(from, days);
          expect(isDateString(to)).toBe(true);
          expect(daysBetween(from, to)).toBe(days);
        },
      ),
    );
  });

  it('daysBetween counts whole days across the March daylight-saving change', () => {
    expect(daysBetween('2026-03-01', '2026-04-01')).toBe(31);
    expect(daysBetween('2026-04-01', '2026-03-01')).toBe(-31);
  });

  it('FixedClock gives copies of its instant', () => {
    const clock = new FixedClock(new Date('2026-11-22T23:30:00-05:00'));
    const now = clock.now();
    now.setUTCFullYear(2000);
    expect(clock.now().toISOString()).toBe('2026-11-23T04:30:00.000Z');
    clock.set(new Date('2027-01-01T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('SystemClock follows the system time', () => {
    const before = Date.now();
    const now = new SystemClock().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now - before).toBeLessThan(1000);
  });
});
