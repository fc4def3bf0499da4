import { creditAvailable, creditStatus } from '../../../src/modules/customers';

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
