import { FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/** Payers on payments, customer identification by payer, payer accounts and aliases, learning (contract §14). */
describe('payers (§14)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-03-15T12:00:00Z'));

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  const patchCustomer = (id: string, body: Record<string, unknown>, t = tenant) => app.patch(`/api/v1/customers/${id}`, body, t.token);
  const getCustomer = async (id: string) => (await app.get(`/api/v1/customers/${id}`, tenant.token)).body;
  const setNameMatching = async (on: boolean) =>
    expect(
      (await app.patch('/api/v1/settings', { cash_application: { short_pay_tolerance: { amount: 0, percent: 0 }, payer_name_matching: on } }, tenant.token)).status,
    ).toBe(200);

  describe('payer accounts and aliases on customers', () => {
    it('shows them, replaces them on PATCH (accounts normalised, duplicates dropped), and takes them on POST', async () => {
      const created = await r.customer({ name: 'Wayne Enterprises', payer_accounts: ['gb29 nwbk 6016 1331 9268 19'], aliases: ['Wayne Ent'] });
      expect(await getCustomer(created.id)).toMatchObject({ payer_accounts: ['GB29NWBK60161331926819'], aliases: ['Wayne Ent'] });
      const res = await patchCustomer(created.id, { payer_accounts: ['DE89 3704 0044 0532 0130 00', 'de89370400440532013000'], aliases: ['WAYNE ENT.', 'Wayne Ent', 'Bruce W.'] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ payer_accounts: ['DE89370400440532013000'], aliases: ['WAYNE ENT.', 'Bruce W.'] });
      expect((await app.get(`/api/v1/customers?q=Wayne`, tenant.token)).body.data[0]).toMatchObject({ payer_accounts: ['DE89370400440532013000'] });
      expect((await patchCustomer(created.id, { aliases: [] })).body.aliases).toEqual([]);
    });

    it.each([
      [{ aliases: ['ok', '...'] }, 'aliases[1]'],
      [{ aliases: Array.from({ length: 51 }, (_, i) => `Name ${i}`) }, 'aliases'],
      [{ payer_accounts: ['   '] }, 'payer_accounts[0]'],
      [{ payer_accounts: ['x'.repeat(65)] }, 'payer_accounts.0'],
      [{ aliases: 'Acme' }, 'aliases'],
    ])('rejects %j with a 400 naming %s, changing nothing', async (body, field) => {
      const c = await r.customer({ aliases: ['Keep Me'] });
      const res = await patchCustomer(c.id, body);
      expectProblem(res, 400, 'validation_failed');
      expect(JSON.stringify(res.body.errors)).toContain(field.split(/[.[]/)[0]);
      expect((await getCustomer(c.id)).aliases).toEqual(['Keep Me']);
    });
  });

  describe('payer on payments', () => {
    it('records the payer (account normalised) and the bank entry id, and shows them on GET', async () => {
      const c = await r.customer();
      const res = await r.payment({ customer_id: c.id, amount: 500, payer: { name: ' Acme Corp. ', account: 'de89 3704 0044 0532 0130 00', bank_id: 'COBADEFFXXX' }, bank_entry_id: 'E-1' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        customer_id: c.id,
        payer: { name: 'Acme Corp.', account: 'DE89370400440532013000', bank_id: 'COBADEFFXXX' },
        bank_entry_id: 'E-1',
        match: { customer_source: 'request' },
      });
      expect(await r.getPayment(res.body.id)).toMatchObject({ payer: res.body.payer, bank_entry_id: 'E-1', match: { customer_source: 'request' } });
      const bare = await r.payment({ customer_id: c.id, amount: 500 });
      expect(bare.body).toMatchObject({ payer: null, bank_entry_id: null });
    });

    it('rejects a payer that is not an object, or too long a name, with a 400', async () => {
      expectProblem(await r.payment({ currency: 'usd', amount: 500, payer: 'Acme' }), 400, 'validation_failed');
      expectProblem(await r.payment({ currency: 'usd', amount: 500, payer: { name: 'x'.repeat(201) } }), 400, 'validation_failed');
      expectProblem(await r.payment({ currency: 'usd', amount: 500, payer: { iban: 'DE89' } }), 400, 'validation_failed');
    });
  });

  describe('identifying the customer', () => {
    it('by a payer account linked to exactly one customer, then matching its invoices', async () => {
      const c = await r.customer({ name: 'Stark Industries', payer_accounts: ['NL91ABNA0417164300'] });
      const inv = await r.invoice(c.id, 7_700);
      const res = await r.payment({ currency: 'usd', amount: 7_700, payer: { name: 'Someone else entirely', account: 'NL91 ABNA 0417 1643 00' } });
      expect(res.body).toMatchObject({
        customer_id: c.id,
        status: 'applied',
        match: { status: 'matched', rule: 'exact_amount', customer_source: 'payer_account' },
        applications: [{ invoice_id: inv.id, amount: 7_700 }],
      });
      expect((await getCustomer(c.id)).ar_summary).toMatchObject({ total_paid: 7_700 });
    });

    it('by a name equal to one customer’s name or alias after normalisation, keeping it as credit when no invoice fits', async () => {
      const c = await r.customer({ name: 'Müller & Söhne GmbH' });
      const res = await r.payment({ currency: 'usd', amount: 999, payer: { name: 'MULLER SOHNE' } });
      expect(res.body).toMatchObject({ customer_id: c.id, status: 'unapplied', match: { status: 'unmatched', rule: null, customer_source: 'payer_name' } });
      expect((await getCustomer(c.id)).ar_summary).toMatchObject({ unapplied_payments: 999 });
    });

    it('not by name when the tenant turned payer_name_matching off', async () => {
      const c = await r.customer({ name: 'Cyberdyne Systems' });
      await setNameMatching(false);
      try {
        const res = await r.payment({ currency: 'usd', amount: 100, payer: { name: 'Cyberdyne Systems Inc.' } });
        expect(res.body).toMatchObject({ customer_id: null, match: { status: 'unmatched', customer_source: null } });
      } finally {
        await setNameMatching(true);
      }
      const res = await r.payment({ currency: 'usd', amount: 100, payer: { name: 'Cyberdyne Systems Inc.' } });
      expect(res.body).toMatchObject({ customer_id: c.id, match: { customer_source: 'payer_name' } });
    });

    it('never on a guess: an account linked to two customers is needs_review with both as candidates, nothing applied', async () => {
      const a = await r.customer({ name: 'Umbrella Corp', payer_accounts: ['FR7630006000011234567890189'] });
      const b = await r.customer({ name: 'Umbrella Pharma', payer_accounts: ['FR7630006000011234567890189'] });
      const inv = await r.invoice(a.id, 4_200);
      const res = await r.payment({ currency: 'usd', amount: 4_200, payer: { account: 'FR7630006000011234567890189' } });
      expect(res.body).toMatchObject({ customer_id: null, status: 'unapplied', applications: [], match: { status: 'needs_review', rule: 'payer_account', customer_source: null } });
      expect(res.body.match.suggestions).toEqual([
        { invoice_ids: [inv.id], rule: 'payer_account', customer_id: a.id, confidence: 0.67, reason: expect.stringContaining(`Umbrella Corp's ${inv.number} is due for exactly 42.00 USD`) },
        { invoice_ids: [], rule: 'payer_account', customer_id: b.id, confidence: 0.33, reason: expect.stringContaining('fits 2 customers (Umbrella Corp, Umbrella Pharma)') },
      ]);
      expect(await r.getInvoice(inv.id)).toMatchObject({ status: 'open', amount_paid: 0 });
    });

    it('a name equal to two customers is needs_review too', async () => {
      await r.customer({ name: 'Initrode LLC' });
      await r.customer({ name: 'Initrode Ltd' });
      const res = await r.payment({ currency: 'usd', amount: 100, payer: { name: 'INITRODE' } });
      expect(res.body).toMatchObject({ customer_id: null, match: { status: 'needs_review', rule: 'payer_name' } });
      expect(res.body.match.suggestions).toHaveLength(2);
    });

    it('rules 1–2 come first: a reference naming an invoice decides the customer, whatever the payer says', async () => {
      const named = await r.customer();
      const inv = await r.invoice(named.id, 300);
      await r.customer({ name: 'Hooli', payer_accounts: ['CH9300762011623852957'] });
      const res = await r.payment({ currency: 'usd', amount: 300, reference: inv.number, payer: { name: 'Hooli', account: 'CH9300762011623852957' } });
      expect(res.body).toMatchObject({ customer_id: named.id, match: { rule: 'reference', customer_source: 'reference' } });
    });

    it('never across tenants', async () => {
      const other = await app.createTenant('Other');
      await new Receivables(app, other).customer({ name: 'Vandelay Industries', payer_accounts: ['BE71096123456769'] });
      const res = await r.payment({ currency: 'usd', amount: 100, payer: { name: 'Vandelay Industries', account: 'BE71096123456769' } });
      expect(res.body).toMatchObject({ customer_id: null, match: { status: 'unmatched' } });
    });
  });

  describe('learning from manual matches', () => {
    it('links the account and aliases the name of a payment a person matched, so the next one is identified', async () => {
      const c = await r.customer({ name: 'Soylent Green Co' });
      const first = await r.invoice(c.id, 1_000);
      const second = await r.invoice(c.id, 2_000);
      const payer = { name: 'SGC Europe BV', account: 'AT61 1904 3002 3457 3201' };
      const unknown = await r.payment({ currency: 'usd', amount: 1_000, payer });
      expect(unknown.body).toMatchObject({ customer_id: null, match: { status: 'unmatched' } });

      const matched = await app.post(`/api/v1/payments/${unknown.body.id}/match`, { applications: [{ invoice_id: first.id }] }, tenant.token);
      expect(matched.status).toBe(200);
      expect(matched.body.payment).toMatchObject({ customer_id: c.id, match: { status: 'matched', rule: 'manual', customer_source: 'manual' } });
      expect(await getCustomer(c.id)).toMatchObject({ payer_accounts: ['AT611904300234573201'], aliases: ['SGC Europe BV'] });

      const next = await r.payment({ currency: 'usd', amount: 2_000, payer });
      expect(next.body).toMatchObject({ customer_id: c.id, status: 'applied', match: { rule: 'exact_amount', customer_source: 'payer_account' }, applications: [{ invoice_id: second.id }] });
      // the name alone now identifies the customer too
      const byName = await r.payment({ currency: 'usd', amount: 5, payer: { name: 'sgc europe' } });
      expect(byName.body).toMatchObject({ customer_id: c.id, match: { customer_source: 'payer_name' } });
    });

    it('learns nothing new from a payer the customer already is, and nothing from a payment without a payer', async () => {
      const c = await r.customer({ name: 'Tyrell Corporation' });
      const inv = await r.invoice(c.id, 1_000);
      const p = await r.payment({ currency: 'usd', amount: 600, payer: { name: 'TYRELL CORP' }, auto_match: 'none' });
      expect(p.body.customer_id).toBeNull();
      await app.post(`/api/v1/payments/${p.body.id}/match`, { applications: [{ invoice_id: inv.id }] }, tenant.token);
      const q = await r.payment({ customer_id: c.id, amount: 400, auto_match: 'none' });
      await app.post(`/api/v1/payments/${q.body.id}/match`, { applications: [{ invoice_id: inv.id }] }, tenant.token);
      expect(await getCustomer(c.id)).toMatchObject({ aliases: [], payer_accounts: [] });
    });
  });
});
