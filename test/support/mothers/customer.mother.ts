import { randomUUID } from 'node:crypto';

let seq = 0;

/** Request bodies for POST /customers: valid by default, override what the test is about. */
export const CustomerMother = {
  request(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    seq++;
    return { name: `Customer ${seq}`, email: `ap${seq}-${randomUUID().slice(0, 8)}@example.com`, currency: 'usd', ...overrides };
  },
};
