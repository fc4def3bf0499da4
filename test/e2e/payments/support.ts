import { inflateSync } from 'node:zlib';
import { TestApp, TestTenant } from '../../support/test-app';

/**
 * Text runs of a PDF (one per TJ/Tj operator), enough to check that a pdfkit document says
 * what it should: content streams are inflated and the hex/literal strings decoded as Latin-1.
 */
export function pdfTextRuns(pdf: Buffer): string[] {
  const runs: string[] = [];
  const raw = pdf.toString('latin1');
  const streamRe = /<<([^]*?)>>\s*stream\r?\n/g;
  for (let m = streamRe.exec(raw); m; m = streamRe.exec(raw)) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    let body = pdf.subarray(start, end);
    if (/FlateDecode/.test(m[1])) {
      try {
        body = inflateSync(body);
      } catch {
        continue;
      }
    }
    const content = body.toString('latin1');
    for (const op of content.matchAll(/\[((?:[^\]\\]|\\.)*)\]\s*TJ|(<[0-9a-fA-F]*>|\((?:[^)\\]|\\.)*\))\s*Tj/g)) {
      const parts = (op[1] ?? op[2]).match(/<[0-9a-fA-F]*>|\((?:[^)\\]|\\.)*\)/g) ?? [];
      runs.push(
        parts
          .map((p) => (p.startsWith('<') ? Buffer.from(p.slice(1, -1), 'hex').toString('latin1') : p.slice(1, -1).replace(/\\([()\\])/g, '$1')))
          .join(''),
      );
    }
  }
  return runs;
}

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
