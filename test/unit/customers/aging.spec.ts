import { addDays } from '../../../src/shared/domain/clock';
import { ageReceivables, agingBucketFor, creditAvailable, creditStatus, emptyAging } from '../../../src/modules/customers';

describe('aging (contract §6)', () => {
  const today = '2026-06-30';
  const due = (daysAgo: number) => addDays(today, -daysAgo);

  it.each([
    [-30, 'current'], // due in the future
    [0, 'current'], // due today: not yet past due
    [1, 'days_1_30'],
    [10, 'days_1_30'],
    [30, 'days_1_30'],
    [31, 'days_31_60'],
    [45, 'days_31_60'],
    [60, 'days_31_60'],
    [61, 'days_61_90'],
    [75, 'days_61_90'],
    [90, 'days_61_90'],
    [91, 'days_over_90'],
    [120, 'days_over_90'],
    [4000, 'days_over_90'],
  ])('an invoice due %p days before today is in %s', (daysAgo, bucket) => {
    expect(agingBucketFor(due(daysAgo), today)).toBe(bucket);
  });

  it('buckets the open amounts so that they add up to the open amount due', () => {
    const items = [
      { dueDate: due(-5), amountDue: 1000 },
      { dueDate: due(0), amountDue: 1 },
      { dueDate: due(10), amountDue: 2000 },
      { dueDate: due(45), amountDue: 3000 },
      { dueDate: due(75), amountDue: 4000 },
      { dueDate: due(120), amountDue: 5000 },
      { dueDate: due(121), amountDue: 7 },
    ];
    const aging = ageReceivables(items, today);
    expect(aging).toEqual({ current: 1001, days_1_30: 2000, days_31_60: 3000, days_61_90: 4000, days_over_90: 5007 });
    expect(Object.values(aging).reduce((a, b) => a + b, 0)).toBe(items.reduce((a, i) => a + i.amountDue, 0));
  });

  it('ages as of another day when asked (as_of)', () => {
    const items = [{ dueDate: '2026-06-01', amountDue: 500 }];
    expect(ageReceivables(items, '2026-05-31')).toEqual({ ...emptyAging(), current: 500 });
    expect(ageReceivables(items, '2026-07-01')).toEqual({ ...emptyAging(), days_1_30: 500 });
    expect(ageReceivables(items, '2026-12-31')).toEqual({ ...emptyAging(), days_over_90: 500 });
  });

  it('crosses month and leap-year boundaries by calendar days', () => {
    expect(agingBucketFor('2028-01-30', '2028-03-01')).toBe('days_31_60'); // 31 days through 29 February
    expect(agingBucketFor('2027-01-30', '2027-03-01')).toBe('days_1_30'); // 30 days
  });
});

describe('credit (contract §6)', () => {
  it.each([
    [{ creditLimit: null, creditHold: false, balance: 999999 }, null, 'ok'],
    [{ creditLimit: 1000, creditHold: false, balance: 999 }, 1, 'ok'],
    [{ creditLimit: 1000, creditHold: false, balance: 1000 }, 0, 'ok'],
    [{ creditLimit: 1000, creditHold: false, balance: 1001 }, -1, 'over_limit'],
    [{ creditLimit: 1000, creditHold: true, balance: 5000 }, -4000, 'on_hold'],
    [{ creditLimit: null, creditHold: true, balance: 0 }, null, 'on_hold'],
    [{ creditLimit: 0, creditHold: false, balance: -50 }, 50, 'ok'],
  ])('%p: available %p, status %s', (position, available, status) => {
    expect(creditAvailable(position)).toBe(available);
    expect(creditStatus(position)).toBe(status);
  });
});
