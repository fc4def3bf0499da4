import { ConflictError } from '../../../src/shared/domain/domain-error';
import { CustomerRepository } from '../../../src/modules/customers';
import { InvoiceRepository } from '../../../src/modules/invoicing';
import { TenantCalendar } from '../../../src/modules/settings';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

/**
 * A customer has one currency, and its invoices and payments are in it (contract §6), under
 * any concurrency (issue 13 finding 2): the database's keys include the currency.
 */
describe('one currency per customer', () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  it('holds while currency changes race invoice and payment creation, in parallel requests', async () => {
    const customers = await Promise.all(Array.from({ length: 24 }, (_, i) => r.customer({ name: `Racer ${i}`, currency: 'eur' })));
    const responses = await Promise.all(
      customers.flatMap((c) => [
        app.post('/api/v1/invoices', { customer_id: c.id, line_items: [{ description: 'Work', quantity: 1, unit_amount: 1_000 }] }, t.token),
        app.patch(`/api/v1/customers/${c.id}`, { currency: 'usd' }, t.token),
        app.post('/api/v1/payments', { customer_id: c.id, amount: 500, auto_match: 'none' }, t.token),
      ]),
    );
    // Each request either happened (its currency is the one it saw, under lock) or was refused as a conflict.
    expect(responses.map((res) => res.status).filter((s) => ![200, 201, 409].includes(s))).toEqual([]);
    const mismatched = await app.query(
      `SELECT 'invoice' AS kind, i.id, i.currency, c.currency AS customer_currency FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id
        WHERE i.tenant_id = $1 AND i.currency <> c.currency
       UNION ALL
       SELECT 'payment', p.id, p.currency, c.currency FROM payments p JOIN customers c ON c.tenant_id = p.tenant_id AND c.id = p.customer_id
        WHERE p.tenant_id = $1 AND p.currency <> c.currency`,
      [t.tenant_id],
    );
    expect(mismatched).toEqual([]); // before the keys included the currency: dozens of rows
  });

  it('refuses a currency change by hand while invoices or payments refer to the old one', async () => {
    const c = await r.customer({ currency: 'eur' });
    await r.payment({ customer_id: c.id, amount: 100, auto_match: 'none' });
    await expect(app.query(`UPDATE customers SET currency = 'usd' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, c.id])).rejects.toMatchObject({
      code: '23503',
    });
  });

  it('refuses to save an invoice or a customer over a newer version (the version check of an UPDATE)', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 1_000);
    const uow = app.app.get(UnitOfWork);
    const invoices = app.app.get(InvoiceRepository, { strict: false });
    const customersRepo = app.app.get(CustomerRepository, { strict: false });
    const at = await app.app.get(TenantCalendar, { strict: false }).now(t.tenant_id);
    await expect(
      uow.run(async () => {
        const invoice = (await invoices.findById(t.tenant_id, inv.id))!;
        await app.query(`UPDATE invoices SET version = version + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, inv.id]); // someone else saved
        invoice.update({ memo: 'stale' }, at);
        await invoices.save(invoice);
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      uow.run(async () => {
        const customer = (await customersRepo.findById(t.tenant_id, c.id))!;
        await app.query(`UPDATE customers SET version = version + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, c.id]);
        customer.update({ name: 'Stale' }, at.now, true);
        await customersRepo.save(customer);
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await r.getInvoice(inv.id)).memo).toBeNull();
  });
});
