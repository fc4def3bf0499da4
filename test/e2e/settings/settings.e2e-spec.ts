import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

const DEFAULTS = {
  timezone: 'UTC',
  cash_application: { short_pay_tolerance: { amount: 0, percent: 0 }, payer_name_matching: true },
  reminders: { enabled: false, days: [-3, 1, 7, 14, 30] },
};

/** GET/PATCH /api/v1/settings (contract §13). */
describe('tenant settings', () => {
  let app: TestApp;
  let acme: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    acme = await app.createTenant('Acme');
  });
  afterAll(() => app.close());

  const get = (t: TestTenant = acme) => app.get('/api/v1/settings', t.token);
  const patch = (body: unknown, t: TestTenant = acme) => app.patch('/api/v1/settings', body, t.token);

  it('starts with the defaults', async () => {
    const res = await get(await app.createTenant('Fresh'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
  });

  it('changes the time zone, keeps the other sections, and reads it back', async () => {
    const res = await patch({ timezone: 'america/los_angeles' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULTS, timezone: 'America/Los_Angeles' });
    expect((await get()).body).toEqual({ ...DEFAULTS, timezone: 'America/Los_Angeles' });
    // A link keeps the name the client chose.
    expect((await patch({ timezone: 'Asia/Kolkata' })).body.timezone).toBe('Asia/Kolkata');
    expect((await patch({ timezone: 'UTC' })).body.timezone).toBe('UTC');
  });

  it('replaces each section it names as a whole', async () => {
    const cash = { short_pay_tolerance: { amount: 500, percent: 1.25 }, payer_name_matching: false };
    const res = await patch({ cash_application: cash, reminders: { enabled: true, days: [30, -3, 7] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ timezone: 'UTC', cash_application: cash, reminders: { enabled: true, days: [-3, 7, 30] } });
    const again = await patch({ reminders: { enabled: false, days: [] } });
    expect(again.body).toEqual({ timezone: 'UTC', cash_application: cash, reminders: { enabled: false, days: [] } });
    expect((await patch({})).body).toEqual(again.body);
  });

  it.each<[string, unknown, string]>([
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['a UTC offset', { timezone: '+05:00' }, 'timezone'],
    ['a time zone that is not a string', { timezone: 5 }, 'timezone'],
    ['an empty time zone', { timezone: '' }, 'timezone'],
    ['an incomplete section', { cash_application: { payer_name_matching: true } }, 'cash_application.short_pay_tolerance'],
    ['an incomplete tolerance', { cash_application: { short_pay_tolerance: { amount: 5 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.percent'],
    ['a negative amount', { cash_application: { short_pay_tolerance: { amount: -1, percent: 1 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.amount'],
    ['an amount over 10^12', { cash_application: { short_pay_tolerance: { amount: 1e12 + 1, percent: 1 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.amount'],
    ['a fractional amount', { cash_application: { short_pay_tolerance: { amount: 1.5, percent: 1 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.amount'],
    ['a percent over 100', { cash_application: { short_pay_tolerance: { amount: 1, percent: 100.5 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.percent'],
    ['a percent with 5 decimals', { cash_application: { short_pay_tolerance: { amount: 1, percent: 0.12345 }, payer_name_matching: true } }, 'cash_application.short_pay_tolerance.percent'],
    ['a repeated reminder day', { reminders: { enabled: true, days: [1, 1] } }, 'reminders.days'],
    ['a reminder day beyond a year', { reminders: { enabled: true, days: [400] } }, 'reminders.days'],
    ['too many reminder days', { reminders: { enabled: true, days: Array.from({ length: 21 }, (_, i) => i) } }, 'reminders.days'],
    ['an unknown setting', { language: 'fr' }, 'language'],
    ['an unknown field in a section', { reminders: { enabled: true, days: [], channel: 'email' } }, 'reminders.channel'],
  ])('400 for %s, and nothing changes', async (_name, body, field) => {
    const before = (await get()).body;
    const res = await patch(body);
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await get()).body).toEqual(before);
  });

  it('needs settings:read to read and settings:write to change', async () => {
    const reader = await app.createClient(acme.tenant_id, 'settings:read');
    const other = await app.createClient(acme.tenant_id, 'invoices:read invoices:write');
    expect((await get(reader)).status).toBe(200);
    expectProblem(await patch({ timezone: 'Europe/Paris' }, reader), 403, 'forbidden');
    expectProblem(await get(other), 403, 'forbidden');
    expectProblem(await patch({ timezone: 'Europe/Paris' }, other), 403, 'forbidden');
    expectProblem(await app.get('/api/v1/settings'), 401, 'unauthorized');
  });

  it('keeps each tenant’s settings to itself', async () => {
    const globex = await app.createTenant('Globex');
    await patch({ timezone: 'Asia/Tokyo' }, globex);
    await patch({ timezone: 'Europe/Berlin' });
    expect((await get(globex)).body.timezone).toBe('Asia/Tokyo');
    expect((await get()).body.timezone).toBe('Europe/Berlin');
  });

  it('loses no section when PATCHes of different sections run at once', async () => {
    const t = await app.createTenant('Parallel');
    for (let round = 0; round < 5; round++) {
      const cash = { short_pay_tolerance: { amount: 100 + round, percent: 1 }, payer_name_matching: round % 2 === 0 };
      const reminders = { enabled: true, days: [round] };
      const timezone = ['Europe/Paris', 'Asia/Tokyo'][round % 2];
      const results = await Promise.all([patch({ cash_application: cash }, t), patch({ reminders }, t), patch({ timezone }, t)]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await get(t)).body).toEqual({ timezone, cash_application: cash, reminders });
    }
  });
});
