import { FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';
import { completed, expectCountsAddUp, fixture, postFile } from './support';

/** POST /bank-statements end to end (contract §14): every format, idempotent re-import, refusals. */
describe('bank-statement imports', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-11-05T12:00:00Z'));

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { BANK_IMPORT_POLL_MS: '100' } });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  const payments = (statementId: string) =>
    app.query(`SELECT * FROM payments WHERE tenant_id = $1 AND metadata->>'bank_statement_id' = $2 ORDER BY bank_entry_id`, [tenant.tenant_id, statementId]);

  it('imports a camt.053 of two statements: payments with payer, reference, remittance and booking date, matched as POST /payments would', async () => {
    const sek = await r.customer({ name: 'Müller & Söhne GmbH', currency: 'sek' });
    const a = await r.invoice(sek.id, 750_000, { number: 'INV-000101' });
    const b = await r.invoice(sek.id, 500_000, { number: 'INV-000102' });
    const res = await postFile(app, tenant, 'camt.053', fixture('camt053-v02-two-statements.xml'));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^bst_/), status: 'processing', format: 'camt.053', entries_total: 10, entries_skipped: 3 });
    expect(res.body.errors).toEqual([{ entry: 9, code: 'invalid_amount', message: expect.stringContaining('more decimals than EUR allows') }]);

    const done = await completed(app, tenant, res.body.id);
    expect(done).toMatchObject({ payments_created: 6, payments_existing: 0, entries_processed: 10, completed_at: expect.any(String) });
    expectCountsAddUp(done);

    const first = (await app.get(`/api/v1/payments?customer_id=${sek.id}`, tenant.token)).body.data[0];
    expect(first).toMatchObject({
      customer_id: sek.id,
      amount: 1_250_000,
      currency: 'sek',
      payment_date: '2026-10-20',
      payer: { name: 'Müller & Söhne GmbH', account: 'DE89370400440532013000', bank_id: 'COBADEFFXXX' },
      bank_entry_id: 'AAAASESS-FP-CN98765',
      remittance: [{ invoice_number: 'INV-000101', amount: 750_000 }, { invoice_number: 'INV-000102', amount: 500_000 }],
      status: 'applied',
      match: { status: 'matched', rule: 'remittance', customer_source: 'remittance' },
    });
    expect(await r.getInvoice(a.id)).toMatchObject({ status: 'paid' });
    expect(await r.getInvoice(b.id)).toMatchObject({ status: 'paid' });
    expect((await payments(res.body.id)).map((p: any) => p.bank_entry_id)).toEqual([
      'AAAASESS-FP-CN98765',
      'AAAASESS-FP-CN98766-01',
      'AAAASESS-FP-CN98766-02',
      'AAAASESS-FP-CN98766-03',
      'AAAASESS-FP-CN98767',
      'EUR-2026-10-20-000017',
    ]);
  });

  it('creates nothing twice when the same file is posted again: payments_existing', async () => {
    const file = fixture('camt054-v04.xml');
    const first = await completed(app, tenant, (await postFile(app, tenant, 'camt.054', file)).body.id);
    expect(first).toMatchObject({ entries_total: 3, payments_created: 2, entries_skipped: 1 });
    const again = await completed(app, tenant, (await postFile(app, tenant, 'camt.054', file)).body.id);
    expect(again).toMatchObject({ entries_total: 3, payments_created: 0, payments_existing: 2, entries_skipped: 1, matched: 0, needs_review: 0, unmatched: 0 });
    expectCountsAddUp(again);
    const [{ n }] = await app.query(`SELECT count(*)::int AS n FROM payments WHERE tenant_id = $1 AND bank_entry_id IN ('FP-20261103-7781', 'BACS-991-0003')`, [tenant.tenant_id]);
    expect(n).toBe(2);
  });

  it.each([
    ['bai2', 'bai2-lockbox.bai', { entries_total: 11, payments_created: 8, entries_skipped: 2 }],
    ['mt940', 'mt940-swift-envelope.sta', { entries_total: 6, payments_created: 3, entries_skipped: 2 }],
    ['mt940', 'mt940-german-gvc.sta', { entries_total: 3, payments_created: 2, entries_skipped: 1 }],
    ['csv', 'statement.csv', { entries_total: 6, payments_created: 3, entries_skipped: 1 }],
    ['camt.053', 'camt053-v08-prefixed.xml', { entries_total: 3, payments_created: 3, entries_skipped: 0 }],
  ])('imports %s (%s) as the bank wrote it', async (format, name, counts) => {
    const other = await app.createTenant(`Tenant for ${name}`);
    const res = await postFile(app, other, format, fixture(name));
    expect(res.status).toBe(202);
    const done = await completed(app, other, res.body.id);
    expect(done).toMatchObject(counts);
    expectCountsAddUp(done);
  });

  it('emits bank_statement.completed with the final resource', async () => {
    const other = await app.createTenant('Events');
    const res = await postFile(app, other, 'csv', fixture('statement.csv'));
    const done = await completed(app, other, res.body.id);
    const [event] = await app.query(`SELECT type, data FROM outbox WHERE tenant_id = $1 AND type = 'bank_statement.completed'`, [other.tenant_id]);
    expect(event.data.object).toEqual(done);
  });

  it('an import with no credit at all is completed in the 202', async () => {
    const res = await postFile(app, tenant, 'csv', 'date,amount,currency\n2026-11-01,-10.00,USD\n');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'completed', entries_total: 1, entries_skipped: 1, entries_processed: 1, payments_created: 0 });
  });

  it('honours Idempotency-Key: the body is compared by its digest, a replay returns the first answer', async () => {
    const t = await app.createTenant('Idempotent');
    const body = fixture('statement.csv');
    const first = await postFile(app, t, 'csv', body, { 'idempotency-key': 'stmt-2026-11-04' });
    expect(first.status).toBe(202);
    const replay = await postFile(app, t, 'csv', body, { 'idempotency-key': 'stmt-2026-11-04' });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expectProblem(await postFile(app, t, 'csv', Buffer.concat([body, Buffer.from('2026-11-06,1.00,EUR,,,,TX-9\n')]), { 'idempotency-key': 'stmt-2026-11-04' }), 422, 'idempotency_key_reused');
    const [{ n }] = await app.query(`SELECT count(*)::int AS n FROM bank_statements WHERE tenant_id = $1`, [t.tenant_id]);
    expect(n).toBe(1);
  });

  describe('refusals', () => {
    const count = async () => (await app.query(`SELECT count(*)::int AS n FROM bank_statements WHERE tenant_id = $1`, [tenant.tenant_id]))[0].n;

    it.each([
      ['a truncated camt.053', 'camt.053', fixture('camt053-v02-two-statements.xml').subarray(0, 5000)],
      ['a camt.054 posted as camt.053', 'camt.053', fixture('camt054-v04.xml')],
      ['a BAI2 file without its trailer', 'bai2', fixture('bai2-lockbox.bai').toString().replace(/99,.*\n?$/, '')],
      ['a CSV posted as MT940', 'mt940', fixture('statement.csv')],
      ['an empty body', 'csv', ''],
    ])('%s: 422, nothing imported', async (_name, format, body) => {
      const before = await count();
      const res = await postFile(app, tenant, format, body);
      expectProblem(res, 422, 'invalid_bank_file');
      expect(await count()).toBe(before);
    });

    it('an unknown or missing format is a 400', async () => {
      expectProblem(await postFile(app, tenant, 'ofx', 'x'), 400, 'validation_failed');
      expectProblem(await app.request('POST', '/api/v1/bank-statements', { token: tenant.token, rawBody: 'x', headers: { 'content-type': 'text/csv' } }), 400, 'validation_failed');
    });

    it('another media type is a 415 (JSON included)', async () => {
      expectProblem(await postFile(app, tenant, 'csv', '{}', { 'content-type': 'application/json' }), 415, 'unsupported_media_type');
      expectProblem(await postFile(app, tenant, 'csv', 'x', { 'content-type': 'application/pdf' }), 415, 'unsupported_media_type');
    });

    it('a Content-Length over 50 MB is a 413, nothing imported; the JSON body limit does not apply below that', async () => {
      const before = await count();
      const header = 'date,amount,currency,reference\n';
      const big = Buffer.alloc(50 * 1024 * 1024 + 1, 'x');
      expectProblem(await postFile(app, tenant, 'csv', big), 413, 'payload_too_large');
      expect(await count()).toBe(before);
      // 2 MB (twice the JSON limit) is fine
      const res = await postFile(app, tenant, 'csv', header + `2026-11-01,-1.00,USD,${'y'.repeat(50_000)}\n`.repeat(42));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ entries_total: 42, entries_skipped: 42 });
    });

    it('needs payments:write', async () => {
      const reader = await app.createClient(tenant.tenant_id, 'payments:read');
      expectProblem(await postFile(app, reader, 'csv', fixture('statement.csv')), 403, 'forbidden');
    });
  });

  describe('reading imports', () => {
    it('lists them newest first with keyset pages, and never another tenant\'s', async () => {
      const t = await app.createTenant('Lister');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await postFile(app, t, 'csv', `date,amount,currency\n2026-11-0${i + 1},-1.00,USD\n`)).body.id);
      const page1 = await app.get('/api/v1/bank-statements?limit=2', t.token);
      expect(page1.body.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
      expect(page1.headers.get('link')).toContain('rel="next"');
      const page2 = await app.get(`/api/v1/bank-statements?limit=2&cursor=${page1.body.next_cursor}`, t.token);
      expect(page2.body).toMatchObject({ data: [{ id: ids[0] }], has_more: false, next_cursor: null });
      expectProblem(await app.get(`/api/v1/bank-statements/${ids[0]}`, tenant.token), 404, 'not_found');
      expectProblem(await app.get('/api/v1/bank-statements/bst_nope', t.token), 404, 'not_found');
      expectProblem(await app.get('/api/v1/bank-statements?status=done', t.token), 400, 'validation_failed');
    });
  });
});
