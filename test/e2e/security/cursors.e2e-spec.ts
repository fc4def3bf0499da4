import { encodeCursor, fingerprint } from '../../../src/shared/domain/pagination';
import { Receivables } from '../payments/support';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** Contract §5: a cursor the service did not issue, or used with other filters or sort, is a 400 (issue 12, finding 10). */
describe('signed cursors', () => {
  let app: TestApp;
  let t: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant('Cursors');
    const r = new Receivables(app, t);
    const customer = await r.customer();
    for (let i = 0; i < 3; i++) {
      await r.invoice(customer.id, 1000 + i);
      await app.post('/api/v1/payments', { customer_id: customer.id, amount: 10 + i, auto_match: 'none' }, t.token);
      await app.post('/api/v1/customers', { name: `C${i}`, currency: 'usd' }, t.token);
      await app.post('/api/v1/webhooks', { url: `https://hooks.example.com/${i}`, events: ['*'] }, t.token);
    }
  });
  afterAll(() => app.close());

  const forged = (payload: Record<string, unknown>) => encodeCursor(payload as never);
  const lists = ['/api/v1/invoices', '/api/v1/customers', '/api/v1/payments', '/api/v1/webhooks'];

  describe.each(lists)('%s', (path) => {
    it('pages with the cursor it issued', async () => {
      const first = await app.get(`${path}?limit=1`, t.token);
      expect(first.status).toBe(200);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await app.get(`${path}?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`, t.token);
      expect(second.status).toBe(200);
      expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    });

    it.each([
      // what an attacker would write: the unsigned payload format, with the right fingerprint and values PostgreSQL cannot cast
      ['a forged payload with a sort value that is no timestamp', { v: 'not-a-time', id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', f: fingerprint({ sort: 'desc:created_at' }) }],
      ['a forged payload with an object as value', { v: { $gt: 1 }, id: 'x', f: 'x' }],
      ['a forged payload with a huge id', { v: '2026-01-01 00:00:00+00', id: 'x'.repeat(5000), f: 'x' }],
    ])('refuses %s with a 400', async (_label, payload) => {
      expectProblem(await app.get(`${path}?cursor=${forged(payload)}`, t.token), 400, 'validation_failed');
    });

    it('refuses an issued cursor whose payload was changed', async () => {
      const cursor: string = (await app.get(`${path}?limit=1`, t.token)).body.next_cursor;
      const [body, mac] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      const tampered = `${Buffer.from(JSON.stringify({ ...payload, v: 'x' })).toString('base64url')}.${mac}`;
      const res = await app.get(`${path}?limit=1&cursor=${tampered}`, t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].field).toBe('cursor');
    });

    it('refuses an issued cursor used with another sort', async () => {
      const cursor: string = (await app.get(`${path}?limit=1`, t.token)).body.next_cursor;
      expectProblem(await app.get(`${path}?limit=1&sort=created_at&cursor=${cursor}`, t.token), 400, 'validation_failed');
    });
  });

  it('refuses an invoices cursor used with another filter', async () => {
    const cursor: string = (await app.get('/api/v1/invoices?limit=1', t.token)).body.next_cursor;
    expectProblem(await app.get(`/api/v1/invoices?limit=1&status=open&cursor=${cursor}`, t.token), 400, 'validation_failed');
  });
});
