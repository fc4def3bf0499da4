import { ConflictError, InvalidStateError, ValidationError } from '../../../src/shared/domain/domain-error';
import { Money } from '../../../src/shared/domain/money';
import { Invoice, InvoiceStatus } from '../../../src/modules/invoicing';
import { AT, InvoiceMother } from '../../support/mothers/invoice.mother';

const LATER = { now: new Date('2026-03-20T09:00:00Z'), today: '2026-03-20' };
const usd = (n: number) => Money.of(n, 'usd');
const types = (invoice: Invoice) => invoice.pullEvents().map((e) => e.type);

/** Contract §15: write-offs of part or all of an invoice's amount due, on the real aggregate. */
describe('Invoice write-offs', () => {
  it('writes off part of the amount due: amount_written_off, amount_due, a write_off ledger credit dated today, invoice.written_off', () => {
    const invoice = InvoiceMother.inStatus('open');
    const writeOff = invoice.writeOff({ amount: 450, reason: 'small_balance' }, LATER);
    expect(writeOff).toEqual({ id: expect.stringMatching(/^wo_/), amount: 450, reason: 'small_balance', createdAt: LATER.now });
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'open', total: 10_000, amount_paid: 0, amount_written_off: 450, amount_due: 9_550 });
    expect(invoice.pullMovements()).toEqual([{ type: 'write_off', date: '2026-03-20', debit: 0, credit: 450, description: 'Invoice INV-000001 written off (small balance)' }]);
    expect(invoice.pullWriteOffs()).toEqual([writeOff]);
    const events = invoice.pullEvents();
    expect(events.map((e) => e.type)).toEqual(['invoice.updated', 'invoice.written_off']);
    expect(events[0].data.previous_attributes).toMatchObject({ amount_written_off: 0, amount_due: 10_000 });
    expect(events[1].data).toMatchObject({
      object: { amount_written_off: 450, amount_due: 9_550 },
      write_off: { id: writeOff.id, amount: 450, reason: 'small_balance', created_at: LATER.now.toISOString() },
    });
  });

  it('writes off all of the amount due by default; nothing paid or credited → uncollectible', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.writeOff({ reason: 'bad_debt' }, LATER);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'uncollectible', amount_written_off: 10_000, amount_due: 0 });
    expect(types(invoice)).toEqual(['invoice.updated', 'invoice.written_off', 'invoice.marked_uncollectible']);
  });

  it('settles a partially paid invoice as paid, on the date it is given (a short pay: the payment date)', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.applyPayment(usd(9_990), 'pay_1', 'app_1', AT, '2026-03-02');
    invoice.pullEvents();
    invoice.writeOff({ amount: 10, reason: 'short_pay', settledOn: '2026-03-02' }, LATER);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'paid', amount_paid: 9_990, amount_written_off: 10, amount_due: 0 });
    expect(invoice.toSnapshot()).toMatchObject({ paidOn: '2026-03-02', paidAt: LATER.now });
    expect(types(invoice)).toEqual(['invoice.updated', 'invoice.written_off', 'invoice.paid']);
  });

  it('keeps an invoice with a partial write-off and nothing received open; a later payment makes it partially paid, then paid', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.writeOff({ amount: 1_000, reason: 'other' }, LATER);
    expect(invoice.status).toBe('open');
    invoice.applyPayment(usd(4_000), 'pay_1', 'app_1', LATER, '2026-03-20');
    expect(invoice.status).toBe('partially_paid');
    invoice.applyPayment(usd(5_000), 'pay_2', 'app_2', LATER, '2026-03-20');
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'paid', amount_due: 0 });
    // Reversing the payment that settled it owes it again; the write-off stays.
    invoice.reverseApplication(usd(5_000), 'pay_2', 'app_2', LATER);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'partially_paid', amount_written_off: 1_000, amount_due: 5_000 });
  });

  it('never takes more than is due (409) nor a non-positive or fractional amount (400)', () => {
    const invoice = InvoiceMother.inStatus('partially_paid'); // 4,000 of 10,000 paid
    expect(() => invoice.writeOff({ amount: 6_001, reason: 'other' }, LATER)).toThrow(ConflictError);
    for (const amount of [0, -5, 1.5]) expect(() => invoice.writeOff({ amount, reason: 'other' }, LATER)).toThrow(ValidationError);
    expect(() => invoice.writeOff({ amount: 10, reason: 'typo' }, LATER)).toThrow(ValidationError);
    expect(invoice.pullWriteOffs()).toEqual([]);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ amount_written_off: 0, amount_due: 6_000 });
  });

  it.each<InvoiceStatus>(['draft', 'paid', 'void', 'uncollectible'])('refuses a %s invoice (409 invalid_state)', (status) => {
    const invoice = InvoiceMother.inStatus(status);
    expect(() => invoice.writeOff({ reason: 'bad_debt' }, LATER)).toThrow(InvalidStateError);
    expect(types(invoice)).toEqual([]);
  });

  it('refuses an open invoice with nothing due (a zero total)', () => {
    const invoice = InvoiceMother.create({ lineItems: [InvoiceMother.line({ unit_amount: 0 })] });
    expect(() => invoice.writeOff({ reason: 'other' }, LATER)).toThrow(InvalidStateError);
  });

  it('counts write-offs in what a line edit, a void and a reopening allow', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.writeOff({ amount: 3_000, reason: 'other' }, LATER);
    expect(() => invoice.update({ line_items: [InvoiceMother.line({ unit_amount: 2_999 })] }, LATER)).toThrow(InvalidStateError);
    expect(() => invoice.update({ status: 'void' }, LATER)).toThrow(InvalidStateError);
    // Marked uncollectible, the rest is written off in the ledger; reopening owes that rest again.
    invoice.update({ status: 'uncollectible' }, LATER);
    expect(invoice.pullMovements().at(-1)).toMatchObject({ type: 'write_off', credit: 7_000 });
    invoice.update({ status: 'open' }, LATER);
    expect(invoice.pullMovements()).toEqual([expect.objectContaining({ type: 'adjustment', debit: 7_000 })]);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'open', amount_written_off: 3_000, amount_due: 7_000 });
  });

  it('cannot reopen an invoice written off in full: write-offs are final', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.writeOff({ reason: 'bad_debt' }, LATER);
    expect(() => invoice.update({ status: 'open' }, LATER)).toThrow(InvalidStateError);
  });
});
