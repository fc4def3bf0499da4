import { ensureBuilt } from '../../support/build';
import { ProcessResult, runNode } from '../../support/child-process';
import { TestApp, TestTenant } from '../../support/test-app';

/** `npm run cli -- settings show|set` on the database a running server uses (the compiled CLI in a child process). */
describe('CLI settings', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let cli: (...args: string[]) => Promise<ProcessResult>;

  beforeAll(async () => {
    const cliPath = await ensureBuilt('cli/main.js');
    app = await TestApp.start();
    tenant = await app.createTenant('Acme');
    cli = (...args) => runNode(cliPath, args, { DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent' });
  }, 120_000);
  afterAll(() => app?.close());

  const viaApi = async () => (await app.get('/api/v1/settings', tenant.token)).body;

  it('changes single fields, keeping the rest of each section, and the running server serves them', async () => {
    await app.patch('/api/v1/settings', { cash_application: { short_pay_tolerance: { amount: 100, percent: 2 }, payer_name_matching: false } }, tenant.token);
    expect((await viaApi()).timezone).toBe('UTC'); // the server has read (and cached) the settings

    const res = await cli('settings', 'set', '--tenant', tenant.tenant_id, '--timezone', 'America/Los_Angeles', '--short-pay-amount', '500', '--reminder-days', '-5,10', '--json');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const expected = {
      timezone: 'America/Los_Angeles',
      cash_application: { short_pay_tolerance: { amount: 500, percent: 2 }, payer_name_matching: false },
      reminders: { enabled: false, days: [-5, 10] },
    };
    expect(JSON.parse(res.stdout)).toEqual(expected);
    expect(await viaApi()).toEqual(expected);
    // The server's calendar follows at once (the CLI's change is announced to it at commit).
    const customer = (await app.post('/api/v1/customers', { name: 'Westward', currency: 'usd' }, tenant.token)).body;
    const laToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date());
    const followed = async () => (await app.get(`/api/v1/customers/${customer.id}/statement`, tenant.token)).body.to === laToday();
    const deadline = Date.now() + 10_000;
    while (!(await followed()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await followed()).toBe(true);

    const shown = await cli('settings', 'show', '--tenant', tenant.tenant_id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('America/Los_Angeles');
    expect(shown.stdout).toContain('days -5, 10');
  });

  it('refuses an unknown time zone (exit 1, one line) and changes nothing', async () => {
    const before = await viaApi();
    const res = await cli('settings', 'set', '--tenant', tenant.tenant_id, '--timezone', 'Mars/Olympus_Mons');
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(/^error: timezone must be an IANA time zone name/);
    expect(await viaApi()).toEqual(before);
  });

  it('says so for an unknown tenant', async () => {
    const res = await cli('settings', 'show', '--tenant', 'ten_01jc9x7m3ef0ab6yr2t0n4q8zd');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Tenant ten_01jc9x7m3ef0ab6yr2t0n4q8zd was not found');
  });
});
