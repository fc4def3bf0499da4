import fc from 'fast-check';
import { TenantSettings } from '../../../src/modules/settings';
import { dateInTimeZone, parseTimeZone } from '../../../src/modules/settings/domain/time-zone';
import { ValidationError } from '../../../src/shared/domain/domain-error';

const tolerance = (amount: number, percent: number) =>
  TenantSettings.defaults().patch({ cash_application: { short_pay_tolerance: { amount, percent }, payer_name_matching: true } });

describe('TenantSettings (contract §13)', () => {
  it('settles short pays of at most min(amount, floor(percent × amount due / 100)), only when both are above 0', () => {
    expect(tolerance(500, 1).shortPayTolerance(100_000)).toBe(500);
    expect(tolerance(500, 1).shortPayTolerance(30_000)).toBe(300);
    expect(tolerance(500, 1).shortPayTolerance(199)).toBe(1); // floor(1.99)
    expect(tolerance(500, 0.0001).shortPayTolerance(1_000_000_000_000)).toBe(500);
    expect(tolerance(0, 5).shortPayTolerance(100_000)).toBe(0);
    expect(tolerance(500, 0).shortPayTolerance(100_000)).toBe(0);
    expect(TenantSettings.defaults().shortPayTolerance(100_000)).toBe(0);
  });

  it('computes the tolerance exactly, whatever the amount due (no floating point)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.bigInt({ min: 1n, max: 1_000_000n }), fc.integer({ min: 1, max: 1e12 }), (amount, scaled, due) => {
        const percent = Number(scaled) / 10_000;
        const expected = (scaled * BigInt(due)) / 1_000_000n;
        expect(tolerance(amount, percent).shortPayTolerance(due)).toBe(Math.min(amount, Number(expected)));
      }),
    );
  });

  it('replaces only the sections a patch names and never changes itself', () => {
    const before = TenantSettings.defaults();
    const after = before.patch({ reminders: { enabled: true, days: [7, -1] } });
    expect(after.toJSON()).toEqual({ ...before.toJSON(), reminders: { enabled: true, days: [-1, 7] } });
    expect(before.toJSON().reminders).toEqual({ enabled: false, days: [-3, 1, 7, 14, 30] });
    expect(after.equals(before)).toBe(false);
    expect(before.patch({}).equals(before)).toBe(true);
  });

  it.each([{ timezone: 'Nowhere/City' }, { cash_application: null }, { reminders: { enabled: 'yes', days: [] } }, { reminders: { enabled: true } }])(
    'refuses %p',
    (patch) => {
      expect(() => TenantSettings.defaults().patch(patch)).toThrow(ValidationError);
    },
  );
});

describe('time zones', () => {
  it.each([
    ['america/los_angeles', 'America/Los_Angeles'],
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['US/Pacific', 'US/Pacific'],
  ])('accepts %s as %s', (name, spelled) => {
    expect(parseTimeZone(name)).toBe(spelled);
  });

  it.each(['', 'Mars/Base', '+05:00', 'UTC+5', '../etc/passwd', 'America/Los Angeles', 'x'.repeat(65), 42, null])('refuses %p', (name) => {
    expect(() => parseTimeZone(name)).toThrow(ValidationError);
  });

  it.each([
    ['2026-07-01T05:30:00Z', 'America/Los_Angeles', '2026-06-30'],
    ['2026-07-01T07:00:00Z', 'America/Los_Angeles', '2026-07-01'],
    ['2026-03-08T09:59:59Z', 'America/Los_Angeles', '2026-03-08'], // the spring-forward day
    ['2026-06-30T12:00:00Z', 'Pacific/Kiritimati', '2026-07-01'], // UTC+14
    ['2026-07-01T11:59:59Z', 'Etc/GMT+12', '2026-06-30'], // UTC-12
    ['2026-12-31T23:30:00Z', 'UTC', '2026-12-31'],
    ['2026-12-31T23:30:00Z', 'Asia/Kolkata', '2027-01-01'],
  ])('%s in %s is %s', (instant, zone, date) => {
    expect(dateInTimeZone(new Date(instant), zone)).toBe(date);
  });
});
