import { ConflictError, InvalidStateError, ValidationError } from '../../../src/shared/domain/domain-error';
import { Money } from '../../../src/shared/domain/money';
import { CreditApplication } from '../../../src/modules/credit-notes/domain/credit-application.service';
import { CreditNote, CreateCreditNoteParams } from '../../../src/modules/credit-notes/domain/credit-note.aggregate';
import { AT, CUSTOMER, InvoiceMother } from '../../support/mothers/invoice.mother';

const LATER = { now: new Date('2026-03-20T09:00:00Z'), today: '2026-03-20' };
const create = (overrides: Partial<CreateCreditNoteParams> = {}) =>
  CreditNote.create({ tenantId: 'ten_01jc9x7m3ef0ab6yr2t0n4q8zd', number: 'CN-000001', customer: CUSTOMER, reason: 'other', amount: 3_000, at: AT, ...overrides });
const persisted = (note: CreditNote) => CreditNote.restore(note.toSnapshot());
const types = (note: { pullEvents(): { type: string }[] }) => note.pullEvents().map((e) => e.type);

/** Credit notes and their application to invoices (contract §15), on the real aggregates. */
describe('CreditNote', () => {
  it('is created open with a credit_note ledger credit dated today and credit_note.created', () => {
    const note = create({ memo: '  Damaged  ' });
    expect(note.toJSON()).toMatchObject({ number: 'CN-000001', status: 'open', currency: 'usd', amount: 3_000, amount_remaining: 3_000, memo: 'Damaged', line_items: [] });
    expect(note.pullMovements()).toEqual([{ type: 'credit_note', date: AT.today, debit: 0, credit: 3_000, description: 'Credit note CN-000001', refundId: null }]);
    expect(types(note)).toEqual(['credit_note.created']);
  });

  it('takes its amount from lines (invoice line math) or an amount, never both or neither', () => {
    expect(create({ amount: undefined, lineItems: [InvoiceMother.line({ quantity: 3, unit_amount: 250, tax_rate: 20 })] }).amount.amount).toBe(900);
    for (const overrides of [{ amount: undefined }, { lineItems: [InvoiceMother.line()] }, { amount: 0 }, { amount: 2.5 }, { reason: 'why' }, { currency: 'eur' }]) {
      expect(() => create(overrides as Partial<CreateCreditNoteParams>)).toThrow(ValidationError);
    }
  });

  it('applies to invoices all or nothing, keeping both sides in step', () => {
    const note = persisted(create());
    const a = InvoiceMother.inStatus('open'); // 10,000 due
    const b = InvoiceMother.inStatus('partially_paid'); // 6,000 due
    expect(() => CreditApplication.apply(note, [{ invoice: a, amount: 2_000 }, { invoice: b, amount: 1_001 }], LATER)).toThrow(ConflictError);
    expect(note.toJSON().amount_applied).toBe(0);
    expect(a.toJSON(LATER.today).amount_credited).toBe(0);

    const applied = CreditApplication.apply(note, [{ invoice: a, amount: 2_000 }, { invoice: b }], LATER);
    expect(applied.map((x) => [x.invoiceId, x.amount])).toEqual([[a.id, 2_000], [b.id, 1_000]]);
    expect(note.toJSON()).toMatchObject({ status: 'applied', amount_applied: 3_000, amount_remaining: 0 });
    expect(a.toJSON(LATER.today)).toMatchObject({ status: 'partially_paid', amount_credited: 2_000, amount_due: 8_000 });
    expect(b.toJSON(LATER.today)).toMatchObject({ status: 'partially_paid', amount_paid: 4_000, amount_credited: 1_000, amount_due: 5_000 });
    expect(note.pullNewApplications()).toHaveLength(2);
    expect(types(note)).toEqual(['credit_note.applied']);
  });

  it('settles an invoice as paid when credit covers what is due', () => {
    const note = persisted(create({ amount: 10_000 }));
    const invoice = InvoiceMother.inStatus('open');
    CreditApplication.apply(note, [{ invoice }], LATER);
    expect(invoice.toJSON(LATER.today)).toMatchObject({ status: 'paid', amount_credited: 10_000, amount_due: 0 });
    expect(invoice.pullEvents().map((e) => e.type)).toEqual(['invoice.updated', 'invoice.paid']);
  });

  it('refuses invoices of another customer, not open, or with nothing due', () => {
    const note = persisted(create());
    const other = InvoiceMother.create({ customer: { ...CUSTOMER, id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8ze' } });
    expect(() => CreditApplication.apply(note, [{ invoice: other }], LATER)).toThrow(ConflictError);
    for (const status of ['draft', 'paid', 'void', 'uncollectible'] as const) {
      expect(() => CreditApplication.apply(note, [{ invoice: InvoiceMother.inStatus(status) }], LATER)).toThrow(InvalidStateError);
    }
    expect(() => CreditApplication.apply(note, [], LATER)).toThrow(ValidationError);
  });

  it('voids only when nothing was used: a void ledger debit and credit_note.voided; never twice', () => {
    const note = persisted(create());
    note.void(LATER);
    expect(note.toJSON()).toMatchObject({ status: 'void', voided_at: LATER.now.toISOString() });
    expect(note.pullMovements()).toEqual([{ type: 'void', date: LATER.today, debit: 3_000, credit: 0, description: 'Credit note CN-000001 voided', refundId: null }]);
    const events = note.pullEvents();
    expect(events.map((e) => e.type)).toEqual(['credit_note.voided']);
    expect(events[0].data.previous_attributes).toEqual({ status: 'open', voided_at: null });
    expect(() => note.void(LATER)).toThrow(InvalidStateError);
    expect(() => CreditApplication.apply(note, [{ invoice: InvoiceMother.inStatus('open') }], LATER)).toThrow(InvalidStateError);

    const used = persisted(create());
    CreditApplication.apply(used, [{ invoice: InvoiceMother.inStatus('open'), amount: 1 }], LATER);
    expect(() => used.void(LATER)).toThrow(InvalidStateError);
  });

  it('keeps Money honest: amounts are the note\'s currency', () => {
    expect(create().amountRemaining).toEqual(Money.of(3_000, 'usd'));
  });
});
