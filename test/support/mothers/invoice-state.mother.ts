import { LedgerEntryInput, LedgerWriter } from '../../../src/modules/customers';
import { InvoiceRepository } from '../../../src/modules/invoicing';
import { Clock } from '../../../src/shared/domain/clock';
import { Money } from '../../../src/shared/domain/money';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TestApp } from '../test-app';

const PAYMENT_ID = 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd';

/**
 * Brings invoices into the states only payments reach (partially_paid, paid) through the
 * API the payments module uses (InvoiceRepository + Invoice.applyPayment, LedgerWriter),
 * so invoicing and customers tests do not depend on the payments endpoints.
 */
export const InvoiceStateMother = {
  /** A payment of `amount` received today and applied in full to the invoice, in one transaction. */
  async pay(app: TestApp, tenantId: string, invoiceId: string, amount: number): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const invoices = app.app.get(InvoiceRepository, { strict: false });
    const now = app.app.get(Clock).now();
    await uow.run(async () => {
      const invoice = await invoices.findByIdForUpdate(tenantId, invoiceId);
      if (!invoice) throw new Error(`no invoice ${invoiceId}`);
      const today = now.toISOString().slice(0, 10); // the tests using this mother run on UTC tenants
      invoice.applyPayment(Money.of(amount, invoice.currency), PAYMENT_ID, 'app_01jc9x7m3ef0ab6yr2t0n4q8zd', { now, today }, today);
      await invoices.save(invoice);
      await InvoiceStateMother.receive(app, { tenantId, customerId: invoice.customerId, entryDate: now.toISOString().slice(0, 10), credit: amount });
    });
  },

  /** A payment received (its ledger credit, dated its payment date), applied to nothing yet. */
  async receive(app: TestApp, entry: Pick<LedgerEntryInput, 'tenantId' | 'customerId' | 'entryDate' | 'credit'>): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const ledger = app.app.get(LedgerWriter, { strict: false });
    await uow.run(() => ledger.post({ ...entry, type: 'payment', sourceType: 'payment', sourceId: PAYMENT_ID, reference: 'wire', description: 'Payment', debit: 0 }).then(() => undefined));
  },
};
