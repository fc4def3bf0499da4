import { ConflictError, InvalidStateError, ValidationError } from '../../../src/shared/domain/domain-error';
import { Money } from '../../../src/shared/domain/money';
import { CashApplication } from '../../../src/modules/payments/domain/cash-application.service';
import { Payment } from '../../../src/modules/payments/domain/payment.aggregate';
import { recordedPayment } from '../../../src/modules/payments/application/record-payment.command';
import { AT, anInvoice, aRecordedPayment } from './payment.mother';

const LATER = new Date('2025-03-02T09:00:00Z');
const LATER_AT = { now: LATER, today: '2025-03-02' };
const AT_UTC = { now: AT, today: '2025-03-01' };

describe('Payment', () => {
  it('is recorded unapplied and unmatched, with a payment.created event carrying its JSON', () => {
    const payment = aRecordedPayment({ reference: 'INV-1', remittance: [{ invoiceId: null, invoiceNumber: 'INV-1', amount: 500 }] });
    expect(payment.toJSON()).toMatchObject({
      customer_id: 'cus_a',
      amount: 10_000,
      currency: 'usd',
      status: 'unapplied',
      amount_applied: 0,
      amount_unapplied: 10_000,
      applications: [],
      remittance: [{ invoice_number: 'INV-1', amount: 500 }],
      match: { status: 'unmatched', rule: null, suggestions: [] },
      auto_match: 'strict',
    });
    const events = payment.pullEvents();
    expect(events.map((e) => e.type)).toEqual(['payment.created']);
    expect(events[0].data.object).toEqual(payment.toJSON());
  });

  it('is built unannounced for a plan: the same payment and checks, no payment.created event', () => {
    const input = { id: 'pay_1', tenantId: 'ten_1', customerId: null, amount: Money.of(10_000, 'usd'), paymentDate: '2025-03-01', method: 'ach' as const, reference: ' INV-1 ', at: AT };
    const planned = Payment.record(input, false);
    expect(planned.peekEvents()).toEqual([]);
    expect(planned.toJSON()).toEqual(Payment.record(input).toJSON());
    expect(() => Payment.record({ ...input, amount: Money.of(0, 'usd') }, false)).toThrow(ValidationError);
  });

  it.each([
    ['a zero amount', { amount: Money.of(0, 'usd') }, 'amount'],
    ['a negative amount', { amount: Money.of(-1, 'usd') }, 'amount'],
    ['an impossible date', { paymentDate: '2025-02-30' }, 'payment_date'],
    ['an unknown method', { method: 'bitcoin' as never }, 'method'],
    ['an unknown auto_match', { autoMatch: 'always' as never }, 'auto_match'],
    ['a remittance line naming both', { remittance: [{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: null }] }, 'remittance[0]'],
    ['a remittance line naming nothing', { remittance: [{ invoiceId: null, invoiceNumber: null, amount: null }] }, 'remittance[0]'],
    ['a remittance amount of 0', { remittance: [{ invoiceId: 'inv_1', invoiceNumber: null, amount: 0 }] }, 'remittance[0].amount'],
  ])('refuses %s', (_name, overrides, field) => {
    expect(() => aRecordedPayment(overrides)).toThrow(expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field })] }));
  });

  describe('applications', () => {
    it('gives payment.matched as previous_attributes exactly those fields of the payment JSON before, in its order (the webhook payload)', () => {
      const payment = aRecordedPayment();
      payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 4_000, applicationId: 'app_1' }], 'auto', 'reference', LATER);
      payment.pullEvents();
      const before = payment.toJSON();
      payment.apply([{ invoiceId: 'inv_2', invoiceNumber: 'INV-2', amount: 6_000, applicationId: 'app_2' }], 'manual', 'manual', LATER);
      const [event] = payment.pullEvents();
      const keys = ['customer_id', 'status', 'amount_applied', 'amount_refunded', 'amount_unapplied', 'applications', 'refunds', 'match'] as const;
      expect(JSON.stringify(event.data.previous_attributes)).toBe(JSON.stringify(Object.fromEntries(keys.map((k) => [k, before[k]]))));
    });

    it('moves status and match with what is applied, recording payment.matched with the old values', () => {
      const payment = aRecordedPayment();
      payment.pullEvents();
      payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 4_000, applicationId: 'app_1' }], 'auto', 'reference', LATER);
      expect(payment.toJSON()).toMatchObject({
        status: 'partially_applied',
        amount_applied: 4_000,
        amount_unapplied: 6_000,
        applications: [{ id: 'app_1', invoice_id: 'inv_1', invoice_number: 'INV-1', amount: 4_000, source: 'auto', applied_at: LATER.toISOString() }],
        match: { status: 'partial', rule: 'reference', suggestions: [] },
      });
      const [event] = payment.pullEvents();
      expect(event.type).toBe('payment.matched');
      expect(event.data.previous_attributes).toMatchObject({ status: 'unapplied', amount_applied: 0, applications: [] });

      payment.apply([{ invoiceId: 'inv_2', invoiceNumber: 'INV-2', amount: 6_000, applicationId: 'app_2' }], 'manual', 'manual', LATER);
      expect(payment.toJSON()).toMatchObject({ status: 'applied', amount_unapplied: 0, match: { status: 'matched', rule: 'manual' } });
    });

    it('never applies more than the payment amount, all or nothing', () => {
      const payment = aRecordedPayment();
      expect(() =>
        payment.apply(
          [
            { invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 6_000, applicationId: 'app_1' },
            { invoiceId: 'inv_2', invoiceNumber: 'INV-2', amount: 4_001, applicationId: 'app_2' },
          ],
          'manual',
          'manual',
          LATER,
        ),
      ).toThrow(expect.objectContaining({ code: 'conflict' }));
      expect(payment.toJSON()).toMatchObject({ amount_applied: 0, applications: [] });
      expect(payment.applicationChanges.added).toEqual([]);
    });

    it.each([0, -5, 1.5])('refuses an application of %p', (amount) => {
      const payment = aRecordedPayment();
      expect(() => payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount, applicationId: 'app_1' }], 'manual', 'manual', LATER)).toThrow(
        expect.objectContaining({ code: 'validation_failed' }),
      );
    });

    it('reverses one application, keeping it as history and tracking the change', () => {
      const payment = aRecordedPayment();
      payment.apply(
        [
          { invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 4_000, applicationId: 'app_1' },
          { invoiceId: 'inv_2', invoiceNumber: 'INV-2', amount: 6_000, applicationId: 'app_2' },
        ],
        'auto',
        'remittance',
        AT,
      );
      payment.markApplicationsSaved();
      payment.pullEvents();
      payment.reverseApplication('app_2', LATER);
      expect(payment.toJSON()).toMatchObject({ status: 'partially_applied', amount_applied: 4_000, match: { status: 'partial', rule: 'remittance' } });
      expect(payment.toJSON().applications.map((a) => a.id)).toEqual(['app_1']);
      expect(payment.applicationChanges.added).toEqual([]);
      expect(payment.applicationChanges.reversed.map((a) => [a.id, a.reversedAt])).toEqual([['app_2', LATER]]);
      const [event] = payment.pullEvents();
      expect(event.type).toBe('payment.application_reversed');
      expect((event.data.previous_attributes!.applications as { id: string }[]).map((a) => a.id)).toEqual(['app_1', 'app_2']);

      payment.reverseApplication('app_1', LATER);
      expect(payment.toJSON()).toMatchObject({ status: 'unapplied', match: { status: 'unmatched', rule: null } });
    });

    it('refuses to reverse an unknown or already reversed application', () => {
      const payment = aRecordedPayment();
      payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 1, applicationId: 'app_1' }], 'manual', 'manual', AT);
      expect(() => payment.reverseApplication('app_x', LATER)).toThrow(expect.objectContaining({ code: 'not_found' }));
      payment.reverseApplication('app_1', LATER);
      expect(() => payment.reverseApplication('app_1', LATER)).toThrow(expect.objectContaining({ code: 'invalid_state' }));
    });

    it('keeps review suggestions until something is applied', () => {
      const payment = aRecordedPayment();
      const suggestion = (id: string) => ({ invoice_ids: [id], rule: 'exact_amount' as const, customer_id: 'cus_1', confidence: 0.5, reason: 'one of two' });
      payment.needsReview('exact_amount', [suggestion('inv_1'), suggestion('inv_2')], AT);
      expect(payment.match).toEqual({ status: 'needs_review', rule: 'exact_amount', suggestions: expect.any(Array), writeOffs: [] });
      payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 10_000, applicationId: 'app_1' }], 'manual', 'manual', LATER);
      expect(payment.match).toEqual({ status: 'matched', rule: 'manual', suggestions: [], writeOffs: [] });
    });
  });
});

describe('Payment ledger credit', () => {
  it('credits the customer once: at recording when known, or when the payment is identified', () => {
    expect(aRecordedPayment().pullMovements()).toEqual([{ customerId: 'cus_a', type: 'payment', date: '2025-03-01', debit: 0, credit: 10_000, refundId: null }]);

    const unidentified = aRecordedPayment({ customerId: null });
    expect(unidentified.pullMovements()).toEqual([]);
    unidentified.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 100, applicationId: 'app_1' }], 'auto', 'reference', LATER, 'cus_z');
    expect(unidentified.pullMovements()).toEqual([{ customerId: 'cus_z', type: 'payment', date: '2025-03-01', debit: 0, credit: 10_000, refundId: null }]);
    unidentified.apply([{ invoiceId: 'inv_2', invoiceNumber: 'INV-2', amount: 100, applicationId: 'app_2' }], 'manual', 'manual', LATER, 'cus_z');
    expect(unidentified.pullMovements()).toEqual([]);
  });
});

describe('CashApplication on real invoices', () => {
  const applied = (invoice: ReturnType<typeof anInvoice>) => invoice.toSnapshot().amountPaid;

  it('applies to invoices and payment alike, defaulting to the lesser of amount due and what is left', () => {
    const payment = aRecordedPayment({ amount: Money.of(10_000, 'usd') });
    const a = anInvoice({ total: 7_000 });
    const b = anInvoice({ total: 5_000, paid: 1_000 });
    const { applications } = CashApplication.apply(payment, [{ invoice: a }, { invoice: b }], 'manual', 'manual', LATER_AT);
    expect(applications.map((x) => [x.invoiceId, x.amount])).toEqual([[a.id, 7_000], [b.id, 3_000]]);
    expect(a.toJSON('2025-03-02')).toMatchObject({ status: 'paid', amount_paid: 7_000, amount_due: 0 });
    expect(a.pullEvents().map((e) => e.type)).toEqual(['invoice.updated', 'invoice.paid']);
    expect(b.toJSON('2025-03-02')).toMatchObject({ status: 'partially_paid', amount_paid: 4_000, amount_due: 1_000 });
    expect(payment.status).toBe('applied');
    // The date paid is the payment's date, not the day it was matched.
    expect(a.toSnapshot().paidOn).toBe(payment.paymentDate);
  });

  it('identifies the customer of a payment without one', () => {
    const payment = aRecordedPayment({ customerId: null });
    const res = CashApplication.apply(payment, [{ invoice: anInvoice({ total: 100, customerId: 'cus_z' }) }], 'manual', 'manual', LATER_AT);
    expect(res.identifiedCustomer).toBe('cus_z');
    expect(payment.customerId).toBe('cus_z');
  });

  it.each([
    ['another customer', () => anInvoice({ total: 100, customerId: 'cus_b' }), undefined, 'conflict'],
    ['another currency', () => anInvoice({ total: 100, currency: 'eur' }), undefined, 'conflict'],
    ['a paid invoice', () => anInvoice({ total: 100, paid: 100 }), undefined, 'invalid_state'],
    ['a void invoice', () => anInvoice({ total: 100, status: 'void' }), undefined, 'invalid_state'],
    ['a draft', () => anInvoice({ total: 100, status: 'draft' }), undefined, 'invalid_state'],
    ['more than the invoice owes', () => anInvoice({ total: 100, paid: 50 }), 51, 'conflict'],
    ['more than the payment has left', () => anInvoice({ total: 50_000 }), 10_001, 'conflict'],
  ])('refuses %s and changes nothing', (_name, make, amount, code) => {
    const payment = aRecordedPayment();
    const invoice = make();
    const before = invoice.toSnapshot();
    expect(() => CashApplication.apply(payment, [{ invoice, amount }], 'manual', 'manual', LATER_AT)).toThrow(expect.objectContaining({ code }));
    expect(invoice.toSnapshot()).toEqual(before);
    expect(invoice.pullEvents()).toEqual([]);
    expect(payment.amountApplied.amount).toBe(0);
  });

  it('counts two lines for one invoice against its amount due', () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 1_000 });
    expect(() => CashApplication.apply(payment, [{ invoice: a, amount: 600 }, { invoice: a, amount: 600 }], 'manual', 'manual', LATER_AT)).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(applied(a)).toBe(0);
  });

  it('refuses when the payment is used up', () => {
    const payment = aRecordedPayment({ amount: Money.of(100, 'usd') });
    CashApplication.apply(payment, [{ invoice: anInvoice({ total: 100 }) }], 'manual', 'manual', LATER_AT);
    expect(() => CashApplication.apply(payment, [{ invoice: anInvoice({ total: 100 }) }], 'manual', 'manual', LATER_AT)).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
  });

  it('reverses on both sides', () => {
    const payment = aRecordedPayment();
    const a = anInvoice({ total: 10_000 });
    const [app] = CashApplication.apply(payment, [{ invoice: a }], 'auto', 'exact_amount', AT_UTC).applications;
    CashApplication.reverse(payment, a, app.id, LATER_AT);
    expect(a.toJSON('2025-03-02')).toMatchObject({ status: 'open', amount_paid: 0 });
    expect(a.toSnapshot().paidOn).toBeNull();
    expect(payment.status).toBe('unapplied');
  });
});

describe('Payment refunds (contract §15)', () => {
  it('refunds only what is unapplied: a refund ledger debit dated today, payment.refunded, status by what is used', () => {
    const payment = aRecordedPayment();
    payment.pullMovements();
    payment.pullEvents();
    payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 6_000, applicationId: 'app_1' }], 'manual', 'manual', LATER);
    expect(() => payment.refund(4_001, null, LATER_AT)).toThrow(ConflictError);
    const refund = payment.refund(4_000, '  Overpaid ', LATER_AT);
    expect(refund).toEqual({ id: expect.stringMatching(/^ref_/), amount: 4_000, reason: 'Overpaid', createdAt: LATER });
    expect(payment.toJSON()).toMatchObject({ status: 'applied', amount_refunded: 4_000, amount_unapplied: 0, match: { status: 'matched' } });
    expect(payment.pullMovements()).toEqual([{ customerId: 'cus_a', type: 'refund', date: '2025-03-02', debit: 4_000, credit: 0, refundId: refund.id }]);
    expect(payment.pullEvents().map((e) => e.type)).toEqual(['payment.matched', 'payment.refunded']);
    expect(payment.pullNewRefunds()).toEqual([refund]);
  });

  it('refuses a non-positive amount (400) and a payment with no customer yet (409)', () => {
    for (const amount of [0, -1, 2.5]) expect(() => aRecordedPayment().refund(amount, null, LATER_AT)).toThrow(ValidationError);
    expect(() => aRecordedPayment({ customerId: null }).refund(100, null, LATER_AT)).toThrow(InvalidStateError);
  });

  it('counts refunds as used: a refund alone makes the payment partially applied, and leaves less to apply', () => {
    const payment = aRecordedPayment();
    payment.refund(2_500, null, LATER_AT);
    expect(payment.status).toBe('partially_applied');
    expect(() => payment.apply([{ invoiceId: 'inv_1', invoiceNumber: 'INV-1', amount: 7_501, applicationId: 'app_1' }], 'manual', 'manual', LATER)).toThrow(ConflictError);
  });
});

describe('recordedPayment', () => {
  const input = { amount: 10_000, currency: 'USD', payment_date: '2025-03-01', reference: 'INV-1' };
  it('makes a payment with an id of its own, announced; a plan (announce false) without either — never saved (ADR 0058)', () => {
    const recorded = recordedPayment('ten_1', input, null, undefined, AT_UTC);
    expect(recorded.id).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(recorded.pullEvents().map((e) => e.type)).toEqual(['payment.created']);
    const planned = recordedPayment('ten_1', input, null, undefined, AT_UTC, false);
    expect(planned.id).toBe('pay_planned');
    expect(planned.pullEvents()).toEqual([]);
    expect({ ...planned.toJSON(), id: recorded.id }).toEqual(recorded.toJSON());
  });
});
