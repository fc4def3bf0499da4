import { TestApp, TestTenant } from '../../support/test-app';

let invoiceSeq = 0;

/** Test data through the public API, as a client would create it. */
export class Receivables {
  constructor(
    readonly app: TestApp,
    readonly tenant: TestTenant,
  ) {}

  async customer(overrides: Record<string, unknown> = {}): Promise<{ id: string; currency: string }> {
    const res = await this.app.post('/api/v1/customers', { name: `Customer ${++invoiceSeq}`, currency: 'usd', ...overrides }, this.tenant.token);
    if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
    return res.body;
  }

  /** An open invoice whose total is `amount` (one line, no tax). */
  async invoice(customerId: string, amount: number, overrides: Record<string, unknown> = {}): Promise<any> {
    const res = await this.app.post(
      '/api/v1/invoices',
      { customer_id: customerId, line_items: [{ description: 'Services', quantity: 1, unit_amount: amount }], ...overrides },
      this.tenant.token,
    );
    if (res.status !== 201) throw new Error(`invoice: ${res.status} ${res.text}`);
    return res.body;
  }

  async payment(body: Record<string, unknown>, headers?: Record<string, string>) {
    return this.app.post('/api/v1/payments', { method: 'ach', ...body }, this.tenant.token, headers);
  }

  async getInvoice(id: string): Promise<any> {
    return (await this.app.get(`/api/v1/invoices/${id}`, this.tenant.token)).body;
  }

  async getPayment(id: string): Promise<any> {
    return (await this.app.get(`/api/v1/payments/${id}`, this.tenant.token)).body;
  }
}
