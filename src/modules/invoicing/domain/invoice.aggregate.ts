import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { addDays, BusinessTime, isDateString } from '../../../shared/domain/clock';
import { ConflictError, InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { CurrencyMismatchError, Money, normalizeCurrency } from '../../../shared/domain/money';
import { InvoiceEvents, InvoiceEventType } from './invoice.events';
import { amountDueOf, CustomerSummary, DisputeSnapshot, InvoiceJson, InvoiceSnapshot, isOverdue, presentInvoice, presentSettlementFigures, SettlementFiguresJson } from './invoice.snapshot';
import { isOpenStatus } from '../../../shared/domain/receivable';
import { EDITABLE_FIELDS, INVOICE_STATUSES, InvoiceStatus, isInvoiceStatus, PATCH_TRANSITIONS } from './invoice-status';
import { LineItem, LineItemInput, LineItemSnapshot, totalsOf } from './line-item.value-object';
import { ReceivableMovement } from './receivable-movement';
import { isWriteOffReason, presentWriteOff, WRITE_OFF_REASONS, WriteOffRequest, WriteOffSnapshot } from './write-off';

/** What the invoice needs to know about its customer when it is created or moved to another one. */
export interface InvoiceCustomer extends CustomerSummary {
  currency: string;
  paymentTermsDays: number;
}

export interface CreateInvoiceParams {
  tenantId: string;
  /** generated when not given */
  id?: string;
  number: string;
  customer: InvoiceCustomer;
  currency?: string;
  /** `draft` or `open` (default) */
  status?: string;
  issueDate?: string;
  dueDate?: string;
  poNumber?: string | null;
  memo?: string | null;
  lineItems: LineItemInput[];
  metadata?: Record<string, unknown> | null;
  /** when, and the tenant's business date then (the default issue date) */
  at: BusinessTime;
}

export interface DisputeInput {
  status: string;
  reason?: string;
  amount?: number;
}

/** A PATCH: the public field names a client asked to change (undefined = not sent). */
export interface InvoicePatch {
  status?: string;
  number?: string;
  /** the customer behind `customer_id`, resolved by the handler (drafts only) */
  customer?: InvoiceCustomer;
  currency?: string;
  issue_date?: string;
  due_date?: string;
  po_number?: string | null;
  memo?: string | null;
  metadata?: Record<string, unknown> | null;
  line_items?: LineItemInput[];
  dispute?: DisputeInput;
}

const PUBLIC_FIELD: Record<string, string> = { customer: 'customer_id' };
/** Lines per invoice (docs/security.md); the request DTO checks the same limit before validation. */
export const MAX_LINES = 500;
const NUMBER_RE = /^[A-Za-z0-9][A-Za-z0-9._\-/#]{0,63}$/;

function date(field: string, value: unknown): string {
  if (!isDateString(value)) throw ValidationError.field(field, `${field} must be a date in YYYY-MM-DD form`);
  return value;
}

function text(field: string, value: unknown, max: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw ValidationError.field(field, `${field} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length > max) throw ValidationError.field(field, `${field} must be at most ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

function validInvoiceNumber(value: unknown): string {
  const n = typeof value === 'string' ? value.trim() : value;
  if (typeof n !== 'string' || !NUMBER_RE.test(n)) {
    throw ValidationError.field('number', 'number must be 1 to 64 letters, digits or . _ - / #, starting with a letter or digit');
  }
  return n;
}

/**
 * The status that follows from what settled the invoice (contract §15): nothing yet — open;
 * something paid or credited — partially paid, or paid once nothing is due; written off only
 * (nothing paid or credited) — still open while something is due, uncollectible once nothing is.
 */
function statusFromSettlements(s: InvoiceSnapshot): InvoiceStatus {
  const received = s.amountPaid + s.amountCredited;
  if (received + s.amountWrittenOff === 0) return 'open';
  if (amountDueOf(s) > 0) return received > 0 ? 'partially_paid' : 'open';
  return received > 0 ? 'paid' : 'uncollectible';
}

/** What a change of status by settlement announces beyond `invoice.updated`. */
function settlementEvent(from: InvoiceStatus, to: InvoiceStatus): InvoiceEventType | null {
  if (to === from) return null;
  return to === 'paid' ? InvoiceEvents.paid : to === 'uncollectible' ? InvoiceEvents.markedUncollectible : null;
}

function parseLines(inputs: unknown, existing: readonly LineItemSnapshot[] = []): LineItemSnapshot[] {
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > MAX_LINES) {
    throw ValidationError.field('line_items', `line_items must hold 1 to ${MAX_LINES} lines`);
  }
  const known = new Set(existing.map((l) => l.id));
  const seen = new Set<string>();
  return inputs.map((input: LineItemInput, i) => {
    const keep = input?.id;
    if (keep !== undefined) {
      // A line may name its current id to keep it; ids are never chosen by clients.
      if (!known.has(keep) || seen.has(keep)) {
        throw ValidationError.field(`line_items[${i}].id`, `line_items[${i}].id must be the id of one of the invoice's current lines`);
      }
      seen.add(keep);
    }
    return LineItem.create(input, `line_items[${i}]`, keep).snapshot;
  });
}

function cloneSnapshot(s: InvoiceSnapshot): InvoiceSnapshot {
  return {
    ...s,
    customer: s.customer ? { ...s.customer } : null,
    lineItems: s.lineItems.map((l) => ({ ...l })),
    dispute: s.dispute ? { ...s.dispute } : null,
    metadata: { ...s.metadata },
  };
}

/**
 * True only when `a` and `b` have the same JSON text (false: perhaps not — ask JSON.stringify):
 * identical values, or arrays and plain objects whose elements, keys (in order) and values are so.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== other[i] || !sameJson((a as Record<string, unknown>)[keys[i]], (b as Record<string, unknown>)[keys[i]])) return false;
  }
  return true;
}

/** The keys of the public representation whose values differ, with their old values. */
function changedAttributes(before: InvoiceJson, after: InvoiceJson): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof InvoiceJson)[]) {
    if (key === 'version' || key === 'updated_at') continue;
    const [a, b] = [before[key], after[key]];
    // Equal as JSON: the same value, or the same lists and plain objects (each key in the same order),
    // checked without writing them out; anything else as JSON, which decides.
    if (!sameJson(a, b) && JSON.stringify(a) !== JSON.stringify(b)) previous[key] = a;
  }
  return previous;
}

/**
 * changedAttributes() of a settlement, whose only changes to the public JSON are among `before`'s
 * fields (and `version`, `updated_at`): those that differ, in the public JSON's key order (ADR 0058).
 */
function settlementChanges(before: SettlementFiguresJson, after: InvoiceJson): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof InvoiceJson)[]) {
    if (key in before && before[key as keyof SettlementFiguresJson] !== after[key]) previous[key] = before[key as keyof SettlementFiguresJson];
  }
  return previous;
}

/**
 * The invoice (contract §7): line math, the status machine, what may change in which
 * status, disputes, and payment applications. It records its public events and the
 * movements of the customer's receivables ledger (§9); the repository writes both in the
 * transaction that saves it.
 */
export class Invoice extends AggregateRoot {
  private s: InvoiceSnapshot;
  /** the version the row has in the database (0: not inserted yet) */
  private persistedVersion: number;
  private movements: ReceivableMovement[] = [];
  private writeOffs: WriteOffSnapshot[] = [];

  private constructor(snapshot: InvoiceSnapshot, persistedVersion: number) {
    super();
    this.s = snapshot;
    this.version = snapshot.version;
    this.persistedVersion = persistedVersion;
  }

  static create(p: CreateInvoiceParams): Invoice {
    const { now, today } = p.at;
    const currency = p.currency === undefined ? p.customer.currency : normalizeCurrency(p.currency);
    if (currency !== p.customer.currency) throw new CurrencyMismatchError(p.customer.currency, currency);
    const status = p.status ?? 'open';
    if (status !== 'draft' && status !== 'open') {
      throw ValidationError.field('status', 'an invoice is created as draft or open');
    }
    const issueDate = p.issueDate === undefined ? today : date('issue_date', p.issueDate);
    const dueDate = p.dueDate === undefined ? addDays(issueDate, p.customer.paymentTermsDays) : date('due_date', p.dueDate);
    if (dueDate < issueDate) throw ValidationError.field('due_date', 'due_date must not be before issue_date');
    if (Array.isArray(p.lineItems) && p.lineItems.some((l) => l?.id !== undefined)) {
      throw ValidationError.field('line_items', 'line item ids are assigned by the server');
    }
    const lineItems = parseLines(p.lineItems);
    const totals = totalsOf(lineItems);
    const invoice = new Invoice(
      {
        tenantId: p.tenantId,
        id: p.id ?? newId('inv'),
        number: validInvoiceNumber(p.number),
        customerId: p.customer.id,
        customer: { id: p.customer.id, name: p.customer.name, email: p.customer.email },
        status,
        currency,
        issueDate,
        dueDate,
        poNumber: text('po_number', p.poNumber, 100),
        memo: text('memo', p.memo, 5000),
        lineItems,
        subtotal: totals.subtotal,
        discountTotal: totals.discount_total,
        taxTotal: totals.tax_total,
        total: totals.total,
        amountPaid: 0,
        amountCredited: 0,
        amountWrittenOff: 0,
        dispute: null,
        metadata: { ...(p.metadata ?? {}) },
        finalizedAt: status === 'open' ? now : null,
        paidAt: null,
        paidOn: null,
        version: 1,
        createdAt: now,
        updatedAt: now,
      },
      0,
    );
    invoice.recordEvent(InvoiceEvents.created, p.at);
    if (status === 'open') {
      invoice.movements.push(Invoice.finalization(invoice.s));
      invoice.recordEvent(InvoiceEvents.finalized, p.at);
    }
    return invoice;
  }

  static restore(snapshot: InvoiceSnapshot): Invoice {
    return new Invoice(cloneSnapshot(snapshot), snapshot.version);
  }

  /**
   * restore() of a snapshot no one else holds (the mapper's, fresh from a row): taken as the
   * invoice's state without a copy — a bank import loads an invoice per entry (ADR 0053).
   */
  static restoreOwned(snapshot: InvoiceSnapshot): Invoice {
    return new Invoice(snapshot, snapshot.version);
  }

  // ---- getters the payments module and the repository use ----
  get id(): string { return this.s.id; }
  get tenantId(): string { return this.s.tenantId; }
  get customerId(): string { return this.s.customerId; }
  get number(): string { return this.s.number; }
  get currency(): string { return this.s.currency; }
  get status(): InvoiceStatus { return this.s.status; }
  get total(): Money { return Money.of(this.s.total, this.s.currency); }
  get amountPaid(): Money { return Money.of(this.s.amountPaid, this.s.currency); }
  get amountCredited(): Money { return Money.of(this.s.amountCredited, this.s.currency); }
  get amountWrittenOff(): Money { return Money.of(this.s.amountWrittenOff, this.s.currency); }
  get amountDue(): Money { return Money.of(amountDueOf(this.s), this.s.currency); }
  get issueDate(): string { return this.s.issueDate; }
  get dueDate(): string { return this.s.dueDate; }
  get isDisputed(): boolean { return this.s.dispute?.status === 'open'; }
  get dispute(): DisputeSnapshot | null { return this.s.dispute ? { ...this.s.dispute } : null; }
  get isNew(): boolean { return this.persistedVersion === 0; }
  /** the version the stored row must still have for this save to apply */
  get expectedVersion(): number { return this.persistedVersion; }

  isOverdue(today: string): boolean {
    return isOverdue(this.s, today);
  }

  toSnapshot(): InvoiceSnapshot {
    return cloneSnapshot(this.s);
  }

  /**
   * toSnapshot() for reading the invoice's scalars (what a settlement's save compares and writes):
   * its lines, customer and metadata are the aggregate's own, not copies — read them, never change
   * them. A bank import settles an invoice per entry (ADR 0058).
   */
  toScalarSnapshot(): InvoiceSnapshot {
    return { ...this.s, dispute: this.s.dispute ? { ...this.s.dispute } : null };
  }

  toJSON(today: string): InvoiceJson {
    return presentInvoice(this.s, today);
  }

  /** Called by the repository once the row is written. */
  markPersisted(): void {
    this.persistedVersion = this.s.version;
  }

  pullMovements(): ReceivableMovement[] {
    const movements = this.movements;
    this.movements = [];
    return movements;
  }

  /** Write-offs made since the last save, for the repository to insert. */
  pullWriteOffs(): WriteOffSnapshot[] {
    const writeOffs = this.writeOffs;
    this.writeOffs = [];
    return writeOffs;
  }

  /**
   * Applies a PATCH as one change: field rules for the current status first (409), then
   * values (400), then the status transition. Nothing changes unless all of it is valid;
   * a PATCH that changes nothing records nothing and keeps the version.
   */
  update(patch: InvoicePatch, at: BusinessTime): void {
    const fields = Object.keys(patch).filter((k) => patch[k as keyof InvoicePatch] !== undefined);
    const editable = EDITABLE_FIELDS[this.s.status];
    if (editable !== 'all') {
      const refused = fields.filter((f) => !editable.has(f)).map((f) => PUBLIC_FIELD[f] ?? f);
      if (refused.length > 0) {
        throw new InvalidStateError(`${refused.join(', ')} cannot be changed on a ${this.s.status} invoice.`);
      }
    }
    const { now, today } = at;
    const next = cloneSnapshot(this.s);
    const movements: ReceivableMovement[] = [];
    const events: InvoiceEventType[] = [];

    if (patch.number !== undefined) next.number = validInvoiceNumber(patch.number);
    if (patch.customer !== undefined) {
      const c = patch.customer;
      next.customerId = c.id;
      next.customer = { id: c.id, name: c.name, email: c.email };
      next.currency = c.currency;
    }
    if (patch.currency !== undefined) {
      const currency = normalizeCurrency(patch.currency);
      // The customer's currency is the invoice's (a customer has one currency).
      if (currency !== next.currency) throw new CurrencyMismatchError(next.currency, currency);
    }
    if (patch.issue_date !== undefined) next.issueDate = date('issue_date', patch.issue_date);
    if (patch.due_date !== undefined) next.dueDate = date('due_date', patch.due_date);
    if (next.dueDate < next.issueDate) throw ValidationError.field('due_date', 'due_date must not be before issue_date');
    if (patch.po_number !== undefined) next.poNumber = text('po_number', patch.po_number, 100);
    if (patch.memo !== undefined) next.memo = text('memo', patch.memo, 5000);
    if (patch.metadata !== undefined) next.metadata = { ...(patch.metadata ?? {}) };
    if (patch.line_items !== undefined) this.replaceLines(next, patch.line_items, today, movements, events);
    if (patch.dispute !== undefined) this.changeDispute(next, patch.dispute, now, events);
    if (patch.status !== undefined) this.transition(next, patch.status, now, today, movements, events);
    // Paid by a change of lines (the new total is what was already paid): paid as of today.
    const stillPaid = next.status === 'paid' && this.s.status === 'paid';
    next.paidAt = next.status !== 'paid' ? null : stillPaid ? this.s.paidAt : now;
    next.paidOn = next.status !== 'paid' ? null : stillPaid ? this.s.paidOn : today;

    const previous = changedAttributes(presentInvoice(this.s, today), presentInvoice(next, today));
    if (Object.keys(previous).length === 0) return;
    this.s = next;
    this.touch(now);
    this.movements.push(...movements.filter((m) => m.debit !== 0 || m.credit !== 0));
    this.recordEvent(InvoiceEvents.updated, at, previous);
    for (const type of events) this.recordEvent(type, at);
  }

  /**
   * Applies part of a payment (the payments module keeps the application itself).
   * Only open and partially paid invoices take money, never more than is due.
   */
  applyPayment(amount: Money, paymentId: string, applicationId: string, at: BusinessTime, paymentDate: string): void {
    this.assertTakes(amount, `application ${applicationId} of payment ${paymentId}`);
    this.settle({ amountPaid: this.s.amountPaid + amount.amount }, at, paymentDate);
  }

  /**
   * Applies part of a credit note (contract §15; the credit-notes module keeps the application).
   * Same rules as a payment: open or partially paid invoices only, never more than is due.
   */
  applyCredit(amount: Money, creditNoteId: string, applicationId: string, at: BusinessTime): void {
    this.assertTakes(amount, `application ${applicationId} of credit note ${creditNoteId}`);
    this.settle({ amountCredited: this.s.amountCredited + amount.amount }, at, at.today);
  }

  /** Takes back an application (payment reversed or re-matched): paid/partially paid → partially paid/open. */
  reverseApplication(amount: Money, paymentId: string, applicationId: string, at: BusinessTime): void {
    if (this.s.status !== 'paid' && this.s.status !== 'partially_paid') {
      throw new InvalidStateError(`Invoice ${this.s.number} is ${this.s.status}; applications can only be reversed on paid or partially paid invoices.`);
    }
    this.assertAmount(amount, `application ${applicationId} of payment ${paymentId}`);
    if (amount.amount > this.s.amountPaid) {
      throw new ConflictError(`${amount.amount} exceeds the ${this.s.amountPaid} paid on invoice ${this.s.number}.`);
    }
    this.settle({ amountPaid: this.s.amountPaid - amount.amount }, at, at.today);
  }

  /**
   * Writes off part or all of the amount due (contract §15): `POST /invoices/:id/write-off`, and
   * the short-pay tolerance of cash application, which calls it on the invoice it has just
   * applied a payment to, in the same transaction (reason `short_pay`, `settledOn` the payment's
   * date). When nothing is left due the invoice is paid if anything was paid or credited, else
   * uncollectible. Records a `write_off` ledger credit dated today and `invoice.written_off`.
   */
  writeOff(request: WriteOffRequest, at: BusinessTime): WriteOffSnapshot {
    if (!isWriteOffReason(request.reason)) throw ValidationError.field('reason', `reason must be one of ${WRITE_OFF_REASONS.join(', ')}`);
    if (!isOpenStatus(this.s.status)) {
      throw new InvalidStateError(`Invoice ${this.s.number} is ${this.s.status}; only open or partially paid invoices can be written off.`);
    }
    const due = amountDueOf(this.s);
    if (due === 0) throw new InvalidStateError(`Invoice ${this.s.number} has nothing due to write off.`);
    const amount = request.amount ?? due;
    if (!Number.isSafeInteger(amount) || amount <= 0) throw ValidationError.field('amount', 'amount must be a positive integer in minor units');
    if (amount > due) throw new ConflictError(`${amount} exceeds the ${due} due on invoice ${this.s.number}.`);
    const writeOff: WriteOffSnapshot = { id: newId('wo'), amount, reason: request.reason, createdAt: at.now };
    this.writeOffs.push(writeOff);
    this.movements.push({
      type: 'write_off',
      date: at.today,
      debit: 0,
      credit: amount,
      description: `Invoice ${this.s.number} written off (${request.reason.replace('_', ' ')})`,
    });
    this.settle({ amountWrittenOff: this.s.amountWrittenOff + amount }, at, request.settledOn ?? at.today, (invoice, object) =>
      invoice.recordEvent(InvoiceEvents.writtenOff, at, undefined, { write_off: presentWriteOff(writeOff) }, object),
    );
    return { ...writeOff };
  }

  // ---- internals ----

  /** What an invoice takes of a payment or credit note: open, in its currency, positive, at most what is due. */
  private assertTakes(amount: Money, what: string): void {
    if (!isOpenStatus(this.s.status)) {
      throw new InvalidStateError(`Invoice ${this.s.number} is ${this.s.status}; only open or partially paid invoices take payments or credit.`);
    }
    this.assertAmount(amount, what);
    const due = amountDueOf(this.s);
    if (amount.amount > due) {
      throw new ConflictError(`${amount.amount} exceeds the ${due} due on invoice ${this.s.number}.`);
    }
  }

  private assertAmount(amount: Money, what: string): void {
    if (amount.currency !== this.s.currency) {
      throw new ConflictError(`The ${what} is in ${amount.currency}; invoice ${this.s.number} is in ${this.s.currency}.`);
    }
    if (!amount.isPositive()) throw ValidationError.field('amount', 'amount must be greater than 0');
  }

  /**
   * Changes what settled the invoice and the status that follows. `paidOn`: the date the money
   * arrived, kept as the date paid if this change settles the invoice. `announce` records the
   * event of the change itself, between `invoice.updated` and the status events.
   */
  private settle(
    change: Partial<Pick<InvoiceSnapshot, 'amountPaid' | 'amountCredited' | 'amountWrittenOff'>>,
    at: BusinessTime,
    paidOn: string,
    announce?: (invoice: Invoice, object: InvoiceJson) => void,
  ): void {
    // What a settlement can change of the public JSON, before it (the rest stays as it is).
    const before = presentSettlementFigures(this.s, at.today);
    const from = this.s.status;
    Object.assign(this.s, change);
    this.s.status = statusFromSettlements(this.s);
    const stillPaid = from === 'paid' && this.s.status === 'paid';
    if (!stillPaid) {
      this.s.paidAt = this.s.status === 'paid' ? at.now : null;
      this.s.paidOn = this.s.status === 'paid' ? paidOn : null;
    }
    this.touch(at.now);
    // The invoice as it is now, compared and then the event's object (presented once, not twice).
    const after = presentInvoice(this.s, at.today);
    this.recordEvent(InvoiceEvents.updated, at, settlementChanges(before, after), undefined, after);
    announce?.(this, after);
    const event = settlementEvent(from, this.s.status);
    // The state `invoice.updated` presented (announce records events, changes nothing): its object again (ADR 0058).
    if (event) this.recordEvent(event, at, undefined, undefined, after);
  }

  private replaceLines(next: InvoiceSnapshot, inputs: LineItemInput[], today: string, movements: ReceivableMovement[], events: InvoiceEventType[]): void {
    next.lineItems = parseLines(inputs, this.s.lineItems);
    const totals = totalsOf(next.lineItems);
    next.subtotal = totals.subtotal;
    next.discountTotal = totals.discount_total;
    next.taxTotal = totals.tax_total;
    next.total = totals.total;
    if (next.status === 'draft') return;
    const settled = next.amountPaid + next.amountCredited + next.amountWrittenOff;
    if (next.total < settled) {
      throw new InvalidStateError(`The new total ${next.total} would be less than the ${settled} already paid, credited or written off.`);
    }
    const delta = next.total - this.s.total;
    movements.push({
      type: 'adjustment',
      date: today,
      debit: Math.max(delta, 0),
      credit: Math.max(-delta, 0),
      description: `Invoice ${next.number} lines changed`,
    });
    if (settled > 0) {
      const status = statusFromSettlements(next);
      const event = settlementEvent(next.status, status);
      if (event) events.push(event);
      next.status = status;
    }
  }

  private changeDispute(next: InvoiceSnapshot, input: DisputeInput, now: Date, events: InvoiceEventType[]): void {
    if (input === null || typeof input !== 'object') throw ValidationError.field('dispute', 'dispute must be an object');
    if (input.status === 'open') {
      if (next.dispute?.status === 'open') throw new InvalidStateError(`Invoice ${next.number} already has an open dispute.`);
      const reason = text('dispute.reason', input.reason, 1000);
      if (!reason) throw ValidationError.field('dispute.reason', 'dispute.reason is required to open a dispute', 'required');
      const due = amountDueOf(next);
      const amount = input.amount ?? (due > 0 ? due : next.total);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > next.total) {
        throw ValidationError.field('dispute.amount', `dispute.amount must be an integer from 1 to the invoice total (${next.total})`);
      }
      next.dispute = { status: 'open', reason, amount, openedAt: now, resolvedAt: null };
      events.push(InvoiceEvents.disputeOpened);
    } else if (input.status === 'resolved') {
      if (next.dispute?.status !== 'open') throw new InvalidStateError(`Invoice ${next.number} has no open dispute.`);
      if (input.reason !== undefined || input.amount !== undefined) {
        throw ValidationError.field('dispute', 'resolving a dispute takes only {"status": "resolved"}');
      }
      next.dispute = { ...next.dispute, status: 'resolved', resolvedAt: now };
      events.push(InvoiceEvents.disputeResolved);
    } else {
      throw ValidationError.field('dispute.status', 'dispute.status must be open or resolved');
    }
  }

  private transition(
    next: InvoiceSnapshot,
    to: string,
    now: Date,
    today: string,
    movements: ReceivableMovement[],
    events: InvoiceEventType[],
  ): void {
    if (!isInvoiceStatus(to)) throw ValidationError.field('status', `status must be one of ${INVOICE_STATUSES.join(', ')}`);
    const from = next.status;
    if (to === from) return;
    if (!PATCH_TRANSITIONS[from].includes(to)) {
      throw new InvalidStateError(
        to === 'partially_paid' || to === 'paid'
          ? `${to} follows from payment applications; it cannot be set.`
          : `An invoice cannot go from ${from} to ${to}.`,
      );
    }
    const due = amountDueOf(next);
    if (from === 'draft' && to === 'open') {
      next.status = 'open';
      next.finalizedAt = now;
      movements.push(Invoice.finalization(next));
      events.push(InvoiceEvents.finalized);
    } else if (to === 'void') {
      if (next.amountPaid !== 0) throw new InvalidStateError(`Invoice ${next.number} has payments applied; reverse them before voiding.`);
      if (next.amountCredited !== 0 || next.amountWrittenOff !== 0) {
        throw new InvalidStateError(`Invoice ${next.number} has been credited or written off; it cannot be voided.`);
      }
      if (from === 'open') {
        movements.push({ type: 'void', date: today, debit: 0, credit: next.total, description: `Invoice ${next.number} voided` });
      }
      next.status = 'void';
      events.push(InvoiceEvents.voided);
    } else if (to === 'uncollectible') {
      movements.push({ type: 'write_off', date: today, debit: 0, credit: due, description: `Invoice ${next.number} written off` });
      next.status = 'uncollectible';
      events.push(InvoiceEvents.markedUncollectible);
    } else {
      // uncollectible → open: what was written off is owed again. An invoice written off in full by
      // write-offs (§15) has nothing left to owe: write-offs are final.
      if (due === 0) throw new InvalidStateError(`Invoice ${next.number} was written off in full; write-offs cannot be undone.`);
      movements.push({ type: 'adjustment', date: today, debit: due, credit: 0, description: `Invoice ${next.number} reopened` });
      next.status = statusFromSettlements(next);
    }
  }

  private static finalization(s: InvoiceSnapshot): ReceivableMovement {
    return { type: 'invoice', date: s.issueDate, debit: s.total, credit: 0, description: `Invoice ${s.number}` };
  }

  /** One version per saved change: the first change since loading bumps it, so events and ETag agree. */
  private touch(now: Date): void {
    this.s.version = this.persistedVersion + 1;
    this.s.updatedAt = now;
    this.version = this.s.version;
  }

  /** `object`: the invoice presented as it is now, when the caller has it already (else presented here). */
  private recordEvent(type: InvoiceEventType, at: BusinessTime, previous?: Record<string, unknown>, detail?: Record<string, unknown>, object?: InvoiceJson): void {
    this.record({
      type,
      aggregateType: 'invoice',
      aggregateId: this.s.id,
      tenantId: this.s.tenantId,
      occurredAt: at.now,
      data: {
        object: (object ?? presentInvoice(this.s, at.today)) as unknown as Record<string, unknown>,
        ...(previous ? { previous_attributes: previous } : {}),
        ...detail,
      },
    });
  }
}
