import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { BusinessTime } from '../../../shared/domain/clock';
import { InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { CurrencyMismatchError, Money, normalizeCurrency } from '../../../shared/domain/money';
import { newRefund, presentRefund, RefundState, sumRefunds } from '../../../shared/domain/refund';
import { LineItem, LineItemInput, MAX_LINES, totalsOf } from '../../invoicing';
import { CreditNoteOverAppliedError, CreditNoteVoidError } from './credit-note.errors';
import { CreditNoteEventType, CreditNoteEvents } from './credit-note.events';
import {
  amountAppliedOf,
  CREDIT_NOTE_REASONS,
  CreditApplicationState,
  CreditNoteJson,
  CreditNoteReason,
  CreditNoteSnapshot,
  CreditNoteStatus,
  creditNoteStatusOf,
  presentCreditNote,
} from './credit-note.snapshot';

/**
 * A change to what the customer owes: the credit given (credit), taken back by a void (debit), or
 * paid out by a refund (debit, naming the refund).
 */
export interface CreditNoteMovement {
  type: 'credit_note' | 'void' | 'refund';
  date: string;
  debit: number;
  credit: number;
  description: string;
  refundId: string | null;
}

export interface CreateCreditNoteParams {
  tenantId: string;
  number: string;
  customer: { id: string; currency: string };
  /** the invoice it is issued for (applied to it by the caller, CreditApplication) */
  invoiceId?: string | null;
  currency?: string;
  reason: string;
  memo?: string | null;
  /** either lines (their total is the amount) or an amount */
  lineItems?: LineItemInput[] | null;
  amount?: number | null;
  at: BusinessTime;
}

/** What the credit note needs to know about an invoice it is applied to. */
export interface CreditTarget {
  invoiceId: string;
  amount: number;
  applicationId: string;
}

const MAX_MEMO = 5000;

/**
 * A credit note (contract §15): credit given to a customer, applied to its invoices, refunded, or
 * left as the customer's credit. Invariant: Σ applications + amount refunded ≤ amount; a void note
 * has neither. Records its events and the movements of the customer's receivables ledger.
 */
export class CreditNote extends AggregateRoot {
  private movements: CreditNoteMovement[] = [];
  private added: CreditApplicationState[] = [];
  private newRefunds: RefundState[] = [];
  private persisted: boolean;

  private constructor(
    private s: CreditNoteSnapshot,
    persisted: boolean,
  ) {
    super();
    this.version = s.version;
    this.persisted = persisted;
  }

  static create(p: CreateCreditNoteParams): CreditNote {
    const currency = p.currency === undefined || p.currency === null ? p.customer.currency : normalizeCurrency(p.currency);
    if (currency !== p.customer.currency) throw new CurrencyMismatchError(p.customer.currency, currency);
    if (!(CREDIT_NOTE_REASONS as readonly string[]).includes(p.reason)) {
      throw ValidationError.field('reason', `reason must be one of ${CREDIT_NOTE_REASONS.join(', ')}`);
    }
    const hasLines = p.lineItems !== undefined && p.lineItems !== null;
    const hasAmount = p.amount !== undefined && p.amount !== null;
    if (hasLines === hasAmount) throw ValidationError.field('amount', 'send either line_items or amount', 'required');
    let lineItems: CreditNoteSnapshot['lineItems'] = [];
    let amount: number;
    if (hasLines) {
      if (!Array.isArray(p.lineItems) || p.lineItems.length === 0 || p.lineItems.length > MAX_LINES) {
        throw ValidationError.field('line_items', `line_items must hold 1 to ${MAX_LINES} lines`);
      }
      if (p.lineItems.some((l) => l?.id !== undefined)) throw ValidationError.field('line_items', 'line item ids are assigned by the server');
      lineItems = p.lineItems.map((l, i) => LineItem.create(l, `line_items[${i}]`).snapshot);
      amount = totalsOf(lineItems).total;
      if (amount <= 0) throw ValidationError.field('line_items', 'the lines of a credit note must total more than 0');
    } else {
      amount = p.amount as number;
      if (!Number.isSafeInteger(amount) || amount <= 0) throw ValidationError.field('amount', 'amount must be a positive integer in minor units');
    }
    const memo = typeof p.memo === 'string' && p.memo.trim() !== '' ? p.memo.trim() : null;
    if (memo && memo.length > MAX_MEMO) throw ValidationError.field('memo', `memo must be at most ${MAX_MEMO} characters`);
    const note = new CreditNote(
      {
        tenantId: p.tenantId,
        id: newId('cn'),
        number: p.number,
        customerId: p.customer.id,
        invoiceId: p.invoiceId ?? null,
        currency,
        amount,
        reason: p.reason as CreditNoteReason,
        memo,
        lineItems,
        applications: [],
        refunds: [],
        voidedAt: null,
        version: 1,
        createdAt: p.at.now,
        updatedAt: p.at.now,
      },
      false,
    );
    note.movements.push({ type: 'credit_note', date: p.at.today, debit: 0, credit: amount, description: `Credit note ${p.number}`, refundId: null });
    note.recordEvent(CreditNoteEvents.created, p.at.now);
    return note;
  }

  static restore(snapshot: CreditNoteSnapshot): CreditNote {
    return new CreditNote(cloneSnapshot(snapshot), true);
  }

  get id(): string { return this.s.id; }
  get tenantId(): string { return this.s.tenantId; }
  get customerId(): string { return this.s.customerId; }
  get number(): string { return this.s.number; }
  get currency(): string { return this.s.currency; }
  get status(): CreditNoteStatus { return creditNoteStatusOf(this.s); }
  get amount(): Money { return Money.of(this.s.amount, this.s.currency); }
  get amountRemaining(): Money { return Money.of(this.s.amount - amountAppliedOf(this.s) - sumRefunds(this.s.refunds), this.s.currency); }
  get isNew(): boolean { return !this.persisted; }

  /**
   * Applies parts of the credit to invoices (the invoices are changed by the caller,
   * CreditApplication, in the same step). All or nothing: every line is checked first.
   */
  apply(targets: CreditTarget[], at: Date): CreditApplicationState[] {
    if (this.s.voidedAt) throw new CreditNoteVoidError(this.s.number);
    let left = this.amountRemaining.amount;
    for (const t of targets) {
      if (!Number.isSafeInteger(t.amount) || t.amount <= 0) throw ValidationError.field('amount', 'an application amount must be a positive integer in minor units');
      if (t.amount > left) throw new CreditNoteOverAppliedError(t.amount, left);
      left -= t.amount;
    }
    if (targets.length === 0) return [];
    const before = this.changing();
    const added = targets.map((t) => ({ id: t.applicationId, invoiceId: t.invoiceId, amount: t.amount, appliedAt: at }));
    this.s.applications.push(...added);
    this.added.push(...added);
    this.touch(at);
    this.recordEvent(CreditNoteEvents.applied, at, before);
    return added.map((a) => ({ ...a }));
  }

  /** Voids a credit note nothing was applied from or refunded: the credit is taken back (a ledger debit). */
  void(at: BusinessTime): void {
    if (this.s.voidedAt) throw new CreditNoteVoidError(this.s.number);
    if (amountAppliedOf(this.s) + sumRefunds(this.s.refunds) > 0) {
      throw new InvalidStateError(`Credit note ${this.s.number} has been applied or refunded; only an unused credit note can be voided.`);
    }
    const before = this.changing();
    this.s.voidedAt = at.now;
    this.touch(at.now);
    this.movements.push({ type: 'void', date: at.today, debit: this.s.amount, credit: 0, description: `Credit note ${this.s.number} voided`, refundId: null });
    this.recordEvent(CreditNoteEvents.voided, at.now, before);
  }

  /**
   * Pays back part of the remaining credit (contract §15; 409 beyond it): a `refund` ledger debit
   * dated today naming the refund, and `credit_note.refunded` with `data.refund`.
   */
  refund(amount: number, reason: string | null | undefined, at: BusinessTime): RefundState {
    if (this.s.voidedAt) throw new CreditNoteVoidError(this.s.number);
    const refund = newRefund(amount, reason, this.amountRemaining.amount, `Credit note ${this.s.number}`, at.now);
    const before = this.changing();
    this.s.refunds.push(refund);
    this.newRefunds.push(refund);
    this.touch(at.now);
    this.movements.push({ type: 'refund', date: at.today, debit: amount, credit: 0, description: `Refund of credit note ${this.s.number}`, refundId: refund.id });
    this.recordEvent(CreditNoteEvents.refunded, at.now, before, { refund: presentRefund(refund) });
    return { ...refund };
  }

  /** Refunds made since the last save, for the repository to insert. */
  pullNewRefunds(): RefundState[] {
    const refunds = this.newRefunds;
    this.newRefunds = [];
    return refunds;
  }

  /** Ledger movements to write with this save. */
  pullMovements(): CreditNoteMovement[] {
    const movements = this.movements;
    this.movements = [];
    return movements;
  }

  /** Applications made since the last save, for the repository to insert. */
  pullNewApplications(): CreditApplicationState[] {
    const added = this.added;
    this.added = [];
    return added;
  }

  /** Called by the repository once the row is written. */
  markPersisted(version: number): void {
    this.persisted = true;
    this.version = version;
    this.s.version = version;
  }

  toSnapshot(): CreditNoteSnapshot {
    return cloneSnapshot(this.s);
  }

  toJSON(): CreditNoteJson {
    return presentCreditNote(this.s);
  }

  private touch(at: Date): void {
    this.s.updatedAt = at;
  }

  /** The fields an application, refund or void changes, for `previous_attributes`. */
  private changing(): Record<string, unknown> {
    const json = this.toJSON();
    return {
      status: json.status,
      amount_applied: json.amount_applied,
      amount_refunded: json.amount_refunded,
      amount_remaining: json.amount_remaining,
      applications: json.applications,
      refunds: json.refunds,
      voided_at: json.voided_at,
    };
  }

  private recordEvent(type: CreditNoteEventType, at: Date, previous?: Record<string, unknown>, detail?: Record<string, unknown>): void {
    const object = this.toJSON();
    const changed = previous && Object.fromEntries(Object.entries(previous).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(object[k as keyof CreditNoteJson])));
    this.record({
      type,
      aggregateType: 'credit_note',
      aggregateId: this.s.id,
      tenantId: this.s.tenantId,
      occurredAt: at,
      data: { object: object as unknown as Record<string, unknown>, ...(changed ? { previous_attributes: changed } : {}), ...detail },
    });
  }
}

function cloneSnapshot(s: CreditNoteSnapshot): CreditNoteSnapshot {
  return { ...s, lineItems: s.lineItems.map((l) => ({ ...l })), applications: s.applications.map((a) => ({ ...a })), refunds: s.refunds.map((r) => ({ ...r })) };
}
