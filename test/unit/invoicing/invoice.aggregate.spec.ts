import { ConflictError, InvalidStateError, ValidationError } from '../../../src/shared/domain/domain-error';
import { Money } from '../../../src/shared/domain/money';
import { INVOICE_STATUSES, Invoice, InvoicePatch, InvoiceStatus } from '../../../src/modules/invoicing';
import { AT, CUSTOMER, InvoiceMother, NOW } from '../../support/mothers/invoice.mother';

const LATER = new Date('2026-03-20T09:00:00Z');
const LATER_AT = { now: LATER, today: '2026-03-20' };
const usd = (n: number) => Money.of(n, 'usd');
const types = (invoice: Invoice) => invoice.pullEvents().map((e) => e.type);

describe('Invoice creation', () => {
  it('is open by default: created and finalized, a ledger debit of the total dated the issue date', () => {
    const invoice = InvoiceMother.create();
    expect(invoice.status).toBe('open');
    expect(invoice.version).toBe(1);
    expect(invoice.pullMovements()).toEqual([{ type: 'invoice', date: '2026-03-01', debit: 10000, credit: 0, description: 'Invoice INV-000001' }]);
    const events = invoice.pullEvents();
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.finalized']);
    expect(events[0].data.object).toMatchObject({ id: invoice.id, number: 'INV-000001', status: 'open', total: 10000, amount_due: 10000, version: 1 });
  });

  it('as a draft records only invoice.created and moves no balance', () => {
    const invoice = InvoiceMother.create({ status: 'draft' });
    expect(invoice.status).toBe('draft');
    expect(types(invoice)).toEqual(['invoice.created']);
    expect(invoice.pullMovements()).toEqual([]);
  });

  it("takes the customer's currency and payment terms by default", () => {
    const json = InvoiceMother.create({ issueDate: '2026-01-31' }).toJSON('2026-03-15');
    expect(json).toMatchObject({ currency: 'usd', issue_date: '2026-01-31', due_date: '2026-03-02' });
    expect(InvoiceMother.create({ issueDate: undefined }).issueDate).toBe('2026-03-15');
  });

  it("refuses a currency other than the customer's (400) and accepts it in either case", () => {
    expect(() => InvoiceMother.create({ currency: 'eur' })).toThrow(ValidationError);
    expect(InvoiceMother.create({ currency: 'USD' }).currency).toBe('usd');
  });

  it.each([
    [{ dueDate: '2026-02-28' }, 'due_date'],
    [{ issueDate: '2026-02-30' }, 'issue_date'],
    [{ status: 'paid' }, 'status'],
    [{ number: ' ' }, 'number'],
    [{ number: 'INV 1' }, 'number'],
  ])('refuses %p (400)', (overrides, field) => {
    try {
      InvoiceMother.create(overrides as never);
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).errors?.[0].field).toBe(field);
    }
  });
});

describe('Invoice status machine (PATCH {status})', () => {
  const allowed: [InvoiceStatus, InvoiceStatus, string[], { type: string; debit: number; credit: number }[]][] = [
    ['draft', 'open', ['invoice.updated', 'invoice.finalized'], [{ type: 'invoice', debit: 10000, credit: 0 }]],
    ['draft', 'void', ['invoice.updated', 'invoice.voided'], []],
    ['open', 'void', ['invoice.updated', 'invoice.voided'], [{ type: 'void', debit: 0, credit: 10000 }]],
    ['open', 'uncollectible', ['invoice.updated', 'invoice.marked_uncollectible'], [{ type: 'write_off', debit: 0, credit: 10000 }]],
    ['partially_paid', 'uncollectible', ['invoice.updated', 'invoice.marked_uncollectible'], [{ type: 'write_off', debit: 0, credit: 6000 }]],
    ['uncollectible', 'open', ['invoice.updated'], [{ type: 'adjustment', debit: 10000, credit: 0 }]],
  ];

  it.each(allowed)('%s → %s is allowed, records its events and ledger movement', (from, to, events, movements) => {
    const invoice = InvoiceMother.inStatus(from);
    invoice.update({ status: to }, LATER_AT);
    expect(invoice.status).toBe(to);
    expect(invoice.version).toBe(2);
    expect(types(invoice)).toEqual(events);
    expect(invoice.pullMovements().map(({ type, debit, credit }) => ({ type, debit, credit }))).toEqual(movements);
  });

  const refused = INVOICE_STATUSES.flatMap((from) =>
    INVOICE_STATUSES.filter((to) => to !== from && !allowed.some(([f, t]) => f === from && t === to)).map((to) => [from, to] as const),
  );

  it.each(refused)('%s → %s is refused with invalid_state and changes nothing', (from, to) => {
    const invoice = InvoiceMother.inStatus(from);
    const before = invoice.toSnapshot();
    expect(() => invoice.update({ status: to }, LATER_AT)).toThrow(InvalidStateError);
    expect(invoice.toSnapshot()).toEqual(before);
    expect(invoice.pullEvents()).toEqual([]);
  });

  it('has exactly the transitions of the contract', () => {
    expect(refused).toHaveLength(6 * 5 - allowed.length);
  });

  it('answers an unknown status with a validation error (400)', () => {
    expect(() => InvoiceMother.inStatus('open').update({ status: 'closed' }, LATER_AT)).toThrow(ValidationError);
  });

  it('treats the current status as no change: no event, same version', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.update({ status: 'open' }, LATER_AT);
    expect(invoice.version).toBe(1);
    expect(invoice.pullEvents()).toEqual([]);
  });

  it('reopens an uncollectible invoice with payments as partially paid, owing what was written off', () => {
    const invoice = InvoiceMother.inStatus('partially_paid');
    invoice.update({ status: 'uncollectible' }, LATER_AT);
    invoice.update({ status: 'open' }, LATER_AT);
    expect(invoice.status).toBe('partially_paid');
    expect(invoice.pullMovements().map((m) => [m.type, m.debit - m.credit])).toEqual([
      ['write_off', -6000],
      ['adjustment', 6000],
    ]);
  });

  it('records previous_attributes of the changed fields on invoice.updated', () => {
    const invoice = InvoiceMother.inStatus('draft');
    invoice.update({ status: 'open', memo: 'Thanks' }, LATER_AT);
    const updated = invoice.pullEvents().find((e) => e.type === 'invoice.updated')!;
    expect(updated.data.previous_attributes).toEqual({ status: 'draft', memo: null });
    expect(updated.data.object).toMatchObject({ status: 'open', memo: 'Thanks', version: 2, updated_at: LATER.toISOString() });
  });
});

describe('Invoice field rules per status (PATCH)', () => {
  const patches: Record<string, InvoicePatch> = {
    number: { number: 'INV-9' },
    customer_id: { customer: { ...CUSTOMER, id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zz' } },
    currency: { currency: 'usd' },
    issue_date: { issue_date: '2026-03-02' },
    due_date: { due_date: '2026-05-01' },
    po_number: { po_number: 'PO-1' },
    memo: { memo: 'memo' },
    metadata: { metadata: { a: 'b' } },
    line_items: { line_items: [InvoiceMother.line({ unit_amount: 12000 })] },
    dispute: { dispute: { status: 'open', reason: 'damaged' } },
  };
  const editable: Record<InvoiceStatus, string[]> = {
    draft: Object.keys(patches),
    open: ['due_date', 'po_number', 'memo', 'metadata', 'line_items', 'dispute'],
    partially_paid: ['due_date', 'po_number', 'memo', 'metadata', 'line_items', 'dispute'],
    paid: ['memo', 'metadata'],
    void: ['memo', 'metadata'],
    uncollectible: ['memo', 'metadata', 'dispute'],
  };
  const cases = INVOICE_STATUSES.flatMap((status) => Object.keys(patches).map((field) => [status, field, editable[status].includes(field)] as const));

  it.each(cases)('%s invoice, %s: allowed=%s', (status, field, ok) => {
    const invoice = InvoiceMother.inStatus(status);
    if (ok) {
      invoice.update(patches[field], LATER_AT);
      expect(invoice.status).toBe(status);
    } else {
      expect(() => invoice.update(patches[field], LATER_AT)).toThrow(InvalidStateError);
      expect(invoice.version).toBe(1);
    }
  });

  it('checks the field rules before the values', () => {
    expect(() => InvoiceMother.inStatus('paid').update({ due_date: 'not a date' }, LATER_AT)).toThrow(InvalidStateError);
  });

  it('applies nothing of a PATCH that is partly invalid', () => {
    const invoice = InvoiceMother.inStatus('open');
    const before = invoice.toSnapshot();
    expect(() => invoice.update({ memo: 'changed', due_date: '2026-02-01' }, LATER_AT)).toThrow(ValidationError);
    expect(invoice.toSnapshot()).toEqual(before);
  });
});

describe('Editing the lines of an open invoice', () => {
  it('posts an adjustment of the change in total, dated the day of the edit', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.update({ line_items: [InvoiceMother.line({ unit_amount: 12500 })] }, LATER_AT);
    invoice.update({ line_items: [InvoiceMother.line({ unit_amount: 9000 })] }, LATER_AT);
    expect(invoice.pullMovements()).toEqual([
      { type: 'adjustment', date: '2026-03-20', debit: 2500, credit: 0, description: 'Invoice INV-000001 lines changed' },
      { type: 'adjustment', date: '2026-03-20', debit: 0, credit: 3500, description: 'Invoice INV-000001 lines changed' },
    ]);
    expect(invoice.total.amount).toBe(9000);
  });

  it('refuses a new total below amount_paid (409) and becomes paid at exactly amount_paid', () => {
    const invoice = InvoiceMother.inStatus('partially_paid'); // 4000 paid
    expect(() => invoice.update({ line_items: [InvoiceMother.line({ unit_amount: 3999 })] }, LATER_AT)).toThrow(InvalidStateError);
    invoice.update({ line_items: [InvoiceMother.line({ unit_amount: 4000 })] }, LATER_AT);
    expect(invoice.status).toBe('paid');
    expect(types(invoice)).toEqual(['invoice.updated', 'invoice.paid']);
  });

  it('keeps the id of a line that names it, and refuses unknown line ids', () => {
    const invoice = InvoiceMother.inStatus('open');
    const [line] = invoice.toJSON('2026-03-15').line_items;
    invoice.update({ line_items: [{ ...InvoiceMother.line({ unit_amount: 500 }), id: line.id }, InvoiceMother.line()] }, LATER_AT);
    expect(invoice.toJSON('2026-03-15').line_items[0].id).toBe(line.id);
    expect(() => invoice.update({ line_items: [{ ...InvoiceMother.line(), id: 'li_01jc9x7m3ef0ab6yr2t0n4q8zd' }] }, LATER_AT)).toThrow(ValidationError);
  });
});

describe('Disputes', () => {
  it('opens with a reason (amount defaults to the amount due) and resolves', () => {
    const invoice = InvoiceMother.inStatus('partially_paid');
    invoice.update({ dispute: { status: 'open', reason: 'damaged' } }, LATER_AT);
    expect(invoice.isDisputed).toBe(true);
    expect(invoice.dispute).toEqual({ status: 'open', reason: 'damaged', amount: 6000, openedAt: LATER, resolvedAt: null });
    expect(types(invoice)).toEqual(['invoice.updated', 'dispute.opened']);
    invoice.update({ dispute: { status: 'resolved' } }, AT);
    expect(invoice.isDisputed).toBe(false);
    expect(invoice.dispute).toMatchObject({ status: 'resolved', resolvedAt: NOW });
    expect(types(invoice)).toEqual(['invoice.updated', 'dispute.resolved']);
  });

  it('requires a reason (400) and refuses a second open dispute or resolving none (409)', () => {
    const invoice = InvoiceMother.inStatus('open');
    expect(() => invoice.update({ dispute: { status: 'open' } }, LATER_AT)).toThrow(ValidationError);
    expect(() => invoice.update({ dispute: { status: 'resolved' } }, LATER_AT)).toThrow(InvalidStateError);
    invoice.update({ dispute: { status: 'open', reason: 'wrong', amount: 100 } }, LATER_AT);
    expect(() => invoice.update({ dispute: { status: 'open', reason: 'again' } }, LATER_AT)).toThrow(InvalidStateError);
    expect(() => invoice.update({ dispute: { status: 'open', reason: 'x', amount: 10001 } }, LATER_AT)).toThrow(InvalidStateError);
  });

  it('refuses a disputed amount above the total (400)', () => {
    expect(() => InvoiceMother.inStatus('open').update({ dispute: { status: 'open', reason: 'x', amount: 10001 } }, LATER_AT)).toThrow(ValidationError);
  });
});

describe('Payment applications (the API payments uses)', () => {
  it('moves open → partially_paid → paid, recording invoice.updated and then invoice.paid', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.applyPayment(usd(2500), 'pay_1', 'app_1', LATER_AT, '2026-03-05');
    expect([invoice.status, invoice.amountPaid.amount, invoice.amountDue.amount]).toEqual(['partially_paid', 2500, 7500]);
    invoice.applyPayment(usd(7500), 'pay_2', 'app_2', LATER_AT, '2026-03-05');
    expect([invoice.status, invoice.amountDue.amount]).toEqual(['paid', 0]);
    const events = invoice.pullEvents();
    expect(events.map((e) => e.type)).toEqual(['invoice.updated', 'invoice.updated', 'invoice.paid']);
    expect(events[0].data.previous_attributes).toEqual({ status: 'open', amount_paid: 0, amount_due: 10000 });
    expect(invoice.version).toBe(2); // one save, one version
  });

  it("gives a settlement's events the invoice as it is after it: the status event the same object as invoice.updated (ADR 0058)", () => {
    const invoice = InvoiceMother.inStatus('partially_paid'); // 4000 of 10000 paid
    invoice.applyPayment(usd(6000), 'pay_2', 'app_2', LATER_AT, '2026-03-05');
    const [updated, paid] = invoice.pullEvents();
    expect([updated.type, paid.type]).toEqual(['invoice.updated', 'invoice.paid']);
    // The payload each had when presented apart: the invoice as it is now, keys in presentation order.
    expect(JSON.stringify(paid.data)).toBe(JSON.stringify({ object: invoice.toJSON(LATER_AT.today) }));
    expect(JSON.stringify(updated.data.object)).toBe(JSON.stringify(invoice.toJSON(LATER_AT.today)));
    expect(paid.data.object).toBe(updated.data.object);
  });

  it("announces every settlement's changes as a diff of the whole public JSON would: each changed field's old value, in the JSON's key order", () => {
    // A settlement's previous_attributes come from its figures only (ADR 0058): the same as comparing every field.
    const OVERDUE_AT = { now: new Date('2026-05-20T09:00:00Z'), today: '2026-05-20' }; // after the due date
    const settlements: [InvoiceStatus, (i: Invoice, at: typeof LATER_AT) => void][] = [
      ['open', (i, at) => i.applyPayment(usd(2500), 'pay_2', 'app_2', at, '2026-03-05')],
      ['open', (i, at) => i.applyPayment(usd(10000), 'pay_2', 'app_2', at, '2026-03-05')],
      ['partially_paid', (i, at) => i.applyPayment(usd(6000), 'pay_2', 'app_2', at, '2026-03-05')],
      ['paid', (i, at) => i.reverseApplication(usd(4000), 'pay_1', 'app_1', at)],
      ['partially_paid', (i, at) => i.reverseApplication(usd(4000), 'pay_1', 'app_1', at)],
      ['open', (i, at) => i.applyCredit(usd(3000), 'cn_1', 'cna_1', at)],
      ['partially_paid', (i, at) => void i.writeOff({ reason: 'short_pay', settledOn: '2026-03-05' }, at)],
      ['open', (i, at) => void i.writeOff({ reason: 'bad_debt' }, at)],
      ['open', (i, at) => void i.writeOff({ amount: 100, reason: 'small_balance' }, at)],
    ];
    for (const at of [LATER_AT, OVERDUE_AT]) {
      for (const [status, settle] of settlements) {
        const invoice = InvoiceMother.inStatus(status);
        const before = invoice.toJSON(at.today) as unknown as Record<string, unknown>;
        settle(invoice, at);
        const [updated] = invoice.pullEvents();
        const after = updated.data.object;
        const expected = Object.fromEntries(
          Object.keys(after).filter((k) => k !== 'version' && k !== 'updated_at' && JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((k) => [k, before[k]]),
        );
        expect(JSON.stringify(updated.data.previous_attributes)).toBe(JSON.stringify(expected));
        expect(Object.keys(expected).length).toBeGreaterThan(0);
      }
    }
  });

  it('reads its scalars without copying its lines and metadata (toScalarSnapshot), the same values as toSnapshot', () => {
    const invoice = InvoiceMother.inStatus('partially_paid');
    invoice.applyPayment(usd(6000), 'pay_2', 'app_2', LATER_AT, '2026-03-05');
    const scalars = invoice.toScalarSnapshot();
    expect(scalars).toEqual(invoice.toSnapshot());
    scalars.amountPaid = 0; // a copy of the scalars: the invoice keeps its own
    expect(invoice.amountPaid.amount).toBe(10000);
  });

  it('is paid on the date of the payment that settles it, and no longer once an application is reversed', () => {
    const invoice = InvoiceMother.inStatus('open');
    invoice.applyPayment(usd(2500), 'pay_1', 'app_1', LATER_AT, '2026-03-02');
    expect(invoice.toSnapshot().paidOn).toBeNull();
    invoice.applyPayment(usd(7500), 'pay_2', 'app_2', LATER_AT, '2026-03-04'); // recorded on the 20th, received on the 4th
    expect(invoice.toSnapshot()).toMatchObject({ status: 'paid', paidOn: '2026-03-04', paidAt: LATER });
    invoice.reverseApplication(usd(7500), 'pay_2', 'app_2', LATER_AT);
    expect(invoice.toSnapshot()).toMatchObject({ status: 'partially_paid', paidOn: null, paidAt: null });
  });

  it('is paid as of the day its lines change to what was already paid', () => {
    const invoice = InvoiceMother.inStatus('partially_paid'); // 4000 of 10000 paid
    invoice.update({ line_items: [{ description: 'Reduced', quantity: '1', unit_amount: 4000 }] }, LATER_AT);
    expect(invoice.toSnapshot()).toMatchObject({ status: 'paid', paidOn: '2026-03-20', paidAt: LATER });
  });

  it('never takes more than is due, another currency, or money in another status', () => {
    expect(() => InvoiceMother.inStatus('open').applyPayment(usd(10001), 'p', 'a', LATER_AT, '2026-03-05')).toThrow(ConflictError);
    expect(() => InvoiceMother.inStatus('open').applyPayment(Money.of(1, 'eur'), 'p', 'a', LATER_AT, '2026-03-05')).toThrow(ConflictError);
    expect(() => InvoiceMother.inStatus('open').applyPayment(usd(0), 'p', 'a', LATER_AT, '2026-03-05')).toThrow(ValidationError);
    for (const status of ['draft', 'paid', 'void', 'uncollectible'] as const) {
      expect(() => InvoiceMother.inStatus(status).applyPayment(usd(1), 'p', 'a', LATER_AT, '2026-03-05')).toThrow(InvalidStateError);
    }
  });

  it('reverses applications: paid → partially_paid → open', () => {
    const invoice = InvoiceMother.inStatus('paid');
    invoice.reverseApplication(usd(4000), 'pay_1', 'app_1', LATER_AT);
    expect(invoice.status).toBe('partially_paid');
    invoice.reverseApplication(usd(6000), 'pay_1', 'app_1', LATER_AT);
    expect([invoice.status, invoice.amountPaid.amount]).toEqual(['open', 0]);
    expect(() => invoice.reverseApplication(usd(1), 'pay_1', 'app_1', LATER_AT)).toThrow(InvalidStateError);
    expect(() => InvoiceMother.inStatus('partially_paid').reverseApplication(usd(4001), 'p', 'a', LATER_AT)).toThrow(ConflictError);
  });
});

describe('Overdue', () => {
  it('is an open or partially paid invoice with money due, due before today', () => {
    const invoice = InvoiceMother.inStatus('open'); // due 2026-03-31
    expect(invoice.toJSON('2026-03-31')).toMatchObject({ overdue: false, days_past_due: 0 });
    expect(invoice.toJSON('2026-04-01')).toMatchObject({ overdue: true, days_past_due: 1 });
    expect(invoice.toJSON('2026-05-15')).toMatchObject({ overdue: true, days_past_due: 45 });
    expect(InvoiceMother.inStatus('partially_paid').isOverdue('2026-05-15')).toBe(true);
    for (const status of ['draft', 'paid', 'void', 'uncollectible'] as const) {
      expect(InvoiceMother.inStatus(status).toJSON('2026-05-15')).toMatchObject({ overdue: false, days_past_due: 0 });
    }
  });
});
