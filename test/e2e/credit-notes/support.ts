import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

/** Receivables test data plus credit notes, write-offs and refunds, through the public API. */
export class Credits extends Receivables {
  constructor(app: TestApp, tenant: TestTenant) {
    super(app, tenant);
  }

  createCreditNote(body: Record<string, unknown>, headers?: Record<string, string>) {
    return this.app.post('/api/v1/credit-notes', { reason: 'other', ...body }, this.tenant.token, headers);
  }

  /** A credit note that must be created (201), as JSON. */
  async creditNote(customerId: string, body: Record<string, unknown>): Promise<any> {
    const res = await this.createCreditNote({ customer_id: customerId, ...body });
    if (res.status !== 201) throw new Error(`credit note: ${res.status} ${res.text}`);
    return res.body;
  }

  applyCreditNote(id: string, applications: unknown[], headers?: Record<string, string>) {
    return this.app.post(`/api/v1/credit-notes/${id}/apply`, { applications }, this.tenant.token, headers);
  }

  voidCreditNote(id: string) {
    return this.app.post(`/api/v1/credit-notes/${id}/void`, {}, this.tenant.token);
  }

  writeOff(invoiceId: string, body: Record<string, unknown>, headers?: Record<string, string>) {
    return this.app.post(`/api/v1/invoices/${invoiceId}/write-off`, body, this.tenant.token, headers);
  }

  async getCreditNote(id: string): Promise<any> {
    return (await this.app.get(`/api/v1/credit-notes/${id}`, this.tenant.token)).body;
  }

  async getCustomer(id: string): Promise<any> {
    return (await this.app.get(`/api/v1/customers/${id}`, this.tenant.token)).body;
  }

  /** The customer's statement lines as [date, type, reference, debit, credit]. */
  async statementLines(customerId: string, from: string, to: string): Promise<{ lines: unknown[][]; statement: any }> {
    const statement = (await this.app.get(`/api/v1/customers/${customerId}/statement?from=${from}&to=${to}`, this.tenant.token)).body;
    return { statement, lines: statement.lines.map((l: any) => [l.date, l.type, l.reference, l.debit, l.credit]) };
  }
}
