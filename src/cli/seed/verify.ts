import { Invoice } from '../../modules/invoicing';
import { CustomerRow, TenantGenerator } from './generate';

/**
 * The generator computes line amounts with plain integer arithmetic for speed. Before
 * loading anything, a sample of generated invoices is rebuilt through the Invoice
 * aggregate itself; any difference in a line amount, tax or total stops the seed.
 */
export async function verifyLineMath(generator: TenantGenerator, customer: CustomerRow, samples = 300): Promise<void> {
  const now = new Date();
  for (let i = 0; i < samples; i++) {
    const lines = generator.lineItems(customer.currency, now.getTime());
    const invoice = Invoice.create({
      tenantId: 'ten_check',
      number: 'INV-CHECK',
      customer: { id: customer.id, name: customer.name, email: customer.email, currency: customer.currency, paymentTermsDays: customer.paymentTermsDays },
      lineItems: lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount: l.unit_amount, discount_amount: l.discount_amount, tax_rate: l.tax_rate })),
      at: { now, today: now.toISOString().slice(0, 10) },
    }).toSnapshot();
    const expected = invoice.lineItems.map((l) => [l.quantity, l.tax_rate, l.gross_amount, l.amount, l.tax_amount].join('/'));
    const actual = lines.map((l) => [l.quantity, l.tax_rate, l.gross_amount, l.amount, l.tax_amount].join('/'));
    const total = lines.reduce((t, l) => t + l.amount + l.tax_amount, 0);
    if (expected.join(' ') !== actual.join(' ') || invoice.total !== total) {
      throw new Error(`seed line math differs from the Invoice aggregate: ${actual.join(' ')} vs ${expected.join(' ')}`);
    }
  }
}
