import { InvoiceRepository } from '../../../src/modules/invoicing';
import { LedgerEntryInput, LedgerWriter } from '../../../src/modules/customers';
import { Money } from '../../../src/shared/domain/money';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TestApp } from '../test-app';

/**
 * Brings invoices into the states only payments reach (partially_paid, paid) through the
 * same exported API the payments module uses (InvoiceRepository + Invoice.applyPayment),
 * and posts payment credits to the ledger as payments do, so invoicing and customers tests
 * do not depend on the payments endpoints.
 */
export const InvoiceStateMother = {
  async applyPayment(app: TestApp, tenantId: string, invoiceId: string, amount: number): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const invoices = app.app.get(InvoiceRepository, { strict: false });
    await uow.run(async () => {
      const invoice = await invoices.findByIdForUpdate(tenantId, invoiceId);
      if (!invoice) throw new Error(`no invoice ${invoiceId}`);
      invoice.applyPayment(Money.of(amount, invoice.currency), 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd', 'app_01jc9x7m3ef0ab6yr2t0n4q8zd', new Date());
      await invoices.save(invoice);
    });
  },

  /** A payment received: the ledger credit (dated its payment date) that moves the balance. */
  async receivePayment(app: TestApp, entry: Pick<LedgerEntryInput, 'tenantId' | 'customerId' | 'entryDate' | 'credit'>): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const ledger = app.app.get(LedgerWriter, { strict: false });
    await uow.run(() =>
      ledger.post({ ...entry, type: 'payment', sourceType: 'payment', sourceId: 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd', reference: 'wire', description: 'Payment', debit: 0 }),
    );
  },
};
