import { BusinessTime } from '../../../src/shared/domain/clock';
import { Money } from '../../../src/shared/domain/money';
import { Invoice, InvoiceCustomer, InvoiceStatus, LineItemInput } from '../../../src/modules/invoicing';

export const CUSTOMER: InvoiceCustomer = { id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', name: 'Acme', email: 'ap@acme.example', currency: 'usd', paymentTermsDays: 30 };
export const NOW = new Date('2026-03-15T12:00:00Z');
/** NOW as a tenant on UTC sees it. */
export const AT: BusinessTime = { now: NOW, today: '2026-03-15' };

/** Test data for invoices: API request bodies and aggregates in any status. */
export const InvoiceMother = {
  line(overrides: Partial<LineItemInput> = {}): LineItemInput {
    return { description: 'Consulting', quantity: 1, unit_amount: 10000, ...overrides };
  },

  /** Body for POST /invoices; `customer_id` or `customer` must be added (or overridden). */
  request(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return { line_items: [InvoiceMother.line()], ...overrides };
  },

  /** An aggregate created with the given lines (default one line of 100.00) as draft or open. */
  create(overrides: Partial<Parameters<typeof Invoice.create>[0]> = {}): Invoice {
    return Invoice.create({
      tenantId: 'ten_01jc9x7m3ef0ab6yr2t0n4q8zd',
      number: 'INV-000001',
      customer: CUSTOMER,
      lineItems: [InvoiceMother.line()],
      issueDate: '2026-03-01',
      at: AT,
      ...overrides,
    });
  },

  /**
   * An aggregate of total 10000 in `status`, as persisted (events and ledger movements of
   * getting there already taken), so a test sees only what it does next.
   */
  inStatus(status: InvoiceStatus): Invoice {
    const invoice = InvoiceMother.create({ status: status === 'draft' ? 'draft' : 'open' });
    if (status === 'partially_paid') invoice.applyPayment(Money.of(4000, 'usd'), 'pay_1', 'app_1', AT, '2026-03-01');
    if (status === 'paid') invoice.applyPayment(Money.of(10000, 'usd'), 'pay_1', 'app_1', AT, '2026-03-01');
    if (status === 'void') invoice.update({ status: 'void' }, AT);
    if (status === 'uncollectible') invoice.update({ status: 'uncollectible' }, AT);
    return InvoiceMother.persisted(invoice);
  },

  /** The same invoice as a repository would load it after saving. */
  persisted(invoice: Invoice): Invoice {
    return Invoice.restore(invoice.toSnapshot());
  },
};
