import { LedgerEntryInput, LedgerWriter } from '../../../src/modules/customers';
import { MatchPaymentCommand } from '../../../src/modules/payments/application/match-payment.command';
import { RecordPaymentCommand } from '../../../src/modules/payments/application/record-payment.command';
import { PaymentSnapshot } from '../../../src/modules/payments/domain/payment.snapshot';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TransactionalCommandBus } from '../../../src/shared/infrastructure/database/transactional-command-bus';
import { TestApp } from '../test-app';

const PAYMENT_ID = 'pay_01jc9x7m3ef0ab6yr2t0n4q8zd';

/**
 * Brings invoices into the states only payments reach (partially_paid, paid) through the
 * payments module's commands (a real payment and its application: the database refuses an
 * amount_paid that no application explains), so invoicing and customers tests do not depend
 * on the payments endpoints.
 */
export const InvoiceStateMother = {
  /** A payment of `amount` received today and applied in full to the invoice, in one transaction. */
  async pay(app: TestApp, tenantId: string, invoiceId: string, amount: number): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const commands = app.app.get(TransactionalCommandBus);
    const [invoice] = await app.query<{ customer_id: string }>(`SELECT customer_id FROM invoices WHERE tenant_id = $1 AND id = $2`, [tenantId, invoiceId]);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    await uow.run(async () => {
      const { id: paymentId } = await commands.execute<PaymentSnapshot>(
        new RecordPaymentCommand(tenantId, { customer_id: invoice.customer_id, amount, method: 'wire', auto_match: 'none' }),
      );
      await commands.execute(new MatchPaymentCommand(tenantId, paymentId, [{ invoice_id: invoiceId, amount }]));
    });
  },

  /** A payment received (its ledger credit, dated its payment date), applied to nothing yet. */
  async receive(app: TestApp, entry: Pick<LedgerEntryInput, 'tenantId' | 'customerId' | 'entryDate' | 'credit'>): Promise<void> {
    const uow = app.app.get(UnitOfWork);
    const ledger = app.app.get(LedgerWriter, { strict: false });
    await uow.run(() => ledger.post({ ...entry, type: 'payment', sourceType: 'payment', sourceId: PAYMENT_ID, reference: 'wire', description: 'Payment', debit: 0 }).then(() => undefined));
  },
};
