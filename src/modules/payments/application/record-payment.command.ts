import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessTime } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId, newId } from '../../../shared/domain/ids';
import { CurrencyMismatchError, Money, normalizeCurrency } from '../../../shared/domain/money';
import { CustomerRepository } from '../../customers';
import { TenantCalendar } from '../../settings';
import { AutoMatchMode, RemittanceLine } from '../domain/matching/cash-matching.policy';
import { Payment } from '../domain/payment.aggregate';
import { PaymentRepository } from '../domain/payment.repository';
import { PaymentMethod, PaymentSnapshot } from '../domain/payment.snapshot';
import { CustomerMatchingLock } from './matching-ports';

export interface RecordPaymentInput {
  customer_id?: string | null;
  amount: number;
  currency?: string;
  payment_date?: string;
  method?: string;
  reference?: string | null;
  remittance?: { invoice_id?: string; invoice_number?: string; amount?: number }[] | null;
  payer?: { name?: string | null; account?: string | null; bank_id?: string | null } | null;
  bank_entry_id?: string | null;
  auto_match?: string;
  metadata?: Record<string, unknown> | null;
}

export class RecordPaymentCommand {
  constructor(
    readonly tenantId: string,
    readonly input: RecordPaymentInput,
  ) {}
}

/**
 * Records a payment. Saving it publishes payment.created, on which automatic matching runs in
 * this same transaction (AutoMatchPaymentHandler); the ledger credit is posted after matching.
 * Answers the payment as written, matched (the same aggregate: matching recalls it from the unit
 * of work's identity map), so the caller's answer needs no read of it.
 */
@CommandHandler(RecordPaymentCommand)
export class RecordPaymentHandler implements ICommandHandler<RecordPaymentCommand, PaymentSnapshot> {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly customers: CustomerRepository,
    private readonly calendar: TenantCalendar,
    private readonly matchingLock: CustomerMatchingLock,
  ) {}

  async execute({ tenantId, input }: RecordPaymentCommand): Promise<PaymentSnapshot> {
    const customerId = input.customer_id ?? null;
    let currency = input.currency === undefined ? undefined : normalizeCurrency(input.currency);
    if (customerId !== null) {
      const customerCurrency = isValidId(customerId, 'cus') ? await this.currencyOf(tenantId, customerId, input.auto_match !== 'none') : null;
      if (customerCurrency === null) throw new NotFoundError('Customer', customerId);
      // A customer has one currency: its payments are in it (contract §6).
      if (currency !== undefined && currency !== customerCurrency) throw new CurrencyMismatchError(customerCurrency, currency);
      currency = customerCurrency;
    }
    if (currency === undefined) throw ValidationError.field('currency', 'currency is required for a payment without customer_id', 'required');

    const at = await this.calendar.now(tenantId);
    const payment = recordedPayment(tenantId, input, customerId, currency, at);
    await this.payments.insert(payment);
    return payment.toSnapshot();
  }

  /**
   * The customer's currency (null: none such). When the payment will be matched automatically,
   * read as its matching lock is taken (one round trip): matching takes that lock first anyway.
   */
  private async currencyOf(tenantId: string, customerId: string, matched: boolean): Promise<string | null> {
    if (matched) return this.matchingLock.lockReadingCurrency(tenantId, customerId);
    return (await this.customers.findById(tenantId, customerId))?.currency ?? null;
  }
}

/** The payment a request records (Payment.record's checks), before it is inserted and matched. */
export function recordedPayment(
  tenantId: string,
  input: RecordPaymentInput,
  customerId: string | null,
  currency: string | undefined,
  at: BusinessTime,
  /** false: the payment's checks and fields only, without its payment.created event (a plan; never saved) */
  announce = true,
): Payment {
  if (currency === undefined && input.currency !== undefined) currency = normalizeCurrency(input.currency);
  if (currency === undefined) throw ValidationError.field('currency', 'currency is required for a payment without customer_id', 'required');
  return Payment.record({
    // A plan's payment is never saved: no id made for it (ADR 0058).
    id: announce ? newId('pay') : 'pay_planned',
    tenantId,
    customerId,
    amount: Money.of(input.amount, currency),
    paymentDate: input.payment_date ?? at.today,
    method: (input.method ?? 'other') as PaymentMethod,
    reference: input.reference?.trim() || null,
    remittance: (input.remittance ?? []).map(
      (l): RemittanceLine => ({ invoiceId: l.invoice_id ?? null, invoiceNumber: l.invoice_number?.trim() || null, amount: l.amount ?? null }),
    ),
    payer: input.payer ? { name: input.payer.name ?? null, account: input.payer.account ?? null, bankId: input.payer.bank_id ?? null } : null,
    bankEntryId: input.bank_entry_id ?? null,
    autoMatch: input.auto_match as AutoMatchMode | undefined,
    metadata: input.metadata ?? {},
    at: at.now,
  }, announce);
}
