import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { BusinessTime, isDateString } from '../../../shared/domain/clock';
import { InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newRefund, presentRefund, RefundState, sumRefunds } from '../../../shared/domain/refund';
import { Money } from '../../../shared/domain/money';
import { MAX_PAYER_TEXT, normalizePayerAccount, Payer } from '../../../shared/domain/payer';
import { ApplicationAlreadyReversedError, ApplicationNotFoundError, PaymentOverAppliedError } from './payment.errors';
import { PaymentEvents } from './payment.events';
import { ApplicationSource, PaymentApplication, PaymentApplications, PaymentApplicationState } from './payment-application.entity';
import { AutoMatchMode, IdentifiedBy, MatchRule, MatchSuggestion, RemittanceLine, ReviewRule } from './matching/cash-matching.policy';
import {
  AUTO_MATCH_MODES,
  CustomerSource,
  MatchStatus,
  MatchWriteOff,
  PAYMENT_METHODS,
  PaymentJson,
  PaymentMatch,
  PaymentMethod,
  PaymentSnapshot,
  PaymentStatus,
  paymentStatusOf,
  presentPayment,
  presentPaymentChanges,
} from './payment.snapshot';

/**
 * A change to what the customer owes: the payment received (a credit, once the customer is
 * known), or a refund paid back out of it (a debit naming the refund).
 */
export interface PaymentLedgerMovement {
  customerId: string;
  type: 'payment' | 'refund';
  date: string;
  debit: number;
  credit: number;
  /** the refund's id for a refund line; the payment itself otherwise */
  refundId: string | null;
}

/** What the payment needs to know about an invoice it is applied to. */
export interface ApplicationTarget {
  invoiceId: string;
  invoiceNumber: string;
  amount: number;
  applicationId: string;
}

const UNMATCHED: PaymentMatch = { status: 'unmatched', rule: null, suggestions: [], writeOffs: [] };

/**
 * Money received from a customer (or not yet known from whom) and how it is applied to
 * invoices. Invariant: the active applications are each > 0 and sum to at most the amount.
 */
export class Payment extends AggregateRoot {
  private readonly applications: PaymentApplications;
  private movements: PaymentLedgerMovement[] = [];
  private newRefunds: RefundState[] = [];

  private constructor(
    private state: Omit<PaymentSnapshot, 'version' | 'applications'>,
    applications: PaymentApplication[],
  ) {
    super();
    this.applications = new PaymentApplications(applications);
  }

  static record(input: {
    id: string;
    tenantId: string;
    customerId: string | null;
    amount: Money;
    paymentDate: string;
    method: PaymentMethod;
    reference?: string | null;
    remittance?: RemittanceLine[];
    payer?: Payer | null;
    bankEntryId?: string | null;
    autoMatch?: AutoMatchMode;
    metadata?: Record<string, unknown>;
    at: Date;
  }, announce = true): Payment {
    if (!input.amount.isPositive()) throw ValidationError.field('amount', 'amount must be a positive integer in minor units');
    if (!isDateString(input.paymentDate)) throw ValidationError.field('payment_date', 'payment_date must be a date (YYYY-MM-DD)');
    if (!PAYMENT_METHODS.includes(input.method)) throw ValidationError.field('method', `method must be one of ${PAYMENT_METHODS.join(', ')}`);
    const autoMatch = input.autoMatch ?? 'strict';
    if (!AUTO_MATCH_MODES.includes(autoMatch)) throw ValidationError.field('auto_match', `auto_match must be one of ${AUTO_MATCH_MODES.join(', ')}`);
    const remittance = input.remittance ?? [];
    remittance.forEach((line, i) => {
      if ((line.invoiceId === null) === (line.invoiceNumber === null)) {
        throw ValidationError.field(`remittance[${i}]`, 'each remittance line names exactly one of invoice_id or invoice_number');
      }
      if (line.amount !== null && (!Number.isSafeInteger(line.amount) || line.amount <= 0)) {
        throw ValidationError.field(`remittance[${i}].amount`, 'amount must be a positive integer in minor units');
      }
    });
    const payment = new Payment(
      {
        id: input.id,
        tenantId: input.tenantId,
        customerId: input.customerId,
        amount: input.amount.amount,
        currency: input.amount.currency,
        paymentDate: input.paymentDate,
        method: input.method,
        reference: input.reference ?? null,
        remittance,
        payer: payerOf(input.payer),
        bankEntryId: input.bankEntryId?.trim() || null,
        customerSource: input.customerId ? 'request' : null,
        autoMatch,
        metadata: input.metadata ?? {},
        match: UNMATCHED,
        refunds: [],
        createdAt: input.at,
        updatedAt: input.at,
      },
      [],
    );
    if (input.customerId) payment.movements.push(payment.receivedMovement(input.customerId));
    // Not announced: a look at what would be recorded (a bank import's plan), never saved.
    if (announce) payment.record(PaymentEvents.created(payment, input.at));
    return payment;
  }

  static restore(snapshot: PaymentSnapshot): Payment {
    const { version, applications, ...rest } = snapshot;
    const payment = new Payment(
      {
        ...rest,
        remittance: [...rest.remittance],
        payer: rest.payer ? { ...rest.payer } : null,
        metadata: { ...rest.metadata },
        match: { ...rest.match, writeOffs: rest.match.writeOffs.map((w) => ({ ...w })) },
        refunds: rest.refunds.map((r) => ({ ...r })),
      },
      applications.map((a) => PaymentApplication.restore(a)),
    );
    payment.version = version;
    return payment;
  }

  get id(): string {
    return this.state.id;
  }
  get tenantId(): string {
    return this.state.tenantId;
  }
  get customerId(): string | null {
    return this.state.customerId;
  }
  get amount(): Money {
    return Money.of(this.state.amount, this.state.currency);
  }
  get currency(): string {
    return this.state.currency;
  }
  get paymentDate(): string {
    return this.state.paymentDate;
  }
  get method(): PaymentMethod {
    return this.state.method;
  }
  get reference(): string | null {
    return this.state.reference;
  }
  get remittance(): readonly RemittanceLine[] {
    return this.state.remittance;
  }
  get payer(): Payer | null {
    return this.state.payer;
  }
  get bankEntryId(): string | null {
    return this.state.bankEntryId;
  }
  get customerSource(): CustomerSource | null {
    return this.state.customerSource;
  }
  get autoMatch(): AutoMatchMode {
    return this.state.autoMatch;
  }
  get metadata(): Record<string, unknown> {
    return this.state.metadata;
  }
  get match(): PaymentMatch {
    return this.state.match;
  }
  get createdAt(): Date {
    return this.state.createdAt;
  }
  get updatedAt(): Date {
    return this.state.updatedAt;
  }
  /** Any application of this payment, reversed ones included. */
  application(id: string): PaymentApplication | undefined {
    return this.applications.find(id);
  }
  get activeApplications(): PaymentApplication[] {
    return this.applications.active();
  }
  /** For the repository: what to insert / update. */
  get applicationChanges(): { added: PaymentApplication[]; reversed: PaymentApplication[] } {
    return { added: this.applications.getNewItems(), reversed: this.applications.getReversedItems() };
  }
  markApplicationsSaved(): void {
    this.applications.clearChanges();
  }

  get amountApplied(): Money {
    return Money.of(
      this.applications.active().reduce((sum, a) => sum + a.amount, 0),
      this.currency,
    );
  }
  get amountRefunded(): Money {
    return Money.of(sumRefunds(this.state.refunds), this.currency);
  }
  /** What is left to apply or refund: the customer's credit from this payment. */
  get amountUnapplied(): Money {
    return this.amount.subtract(this.amountApplied).subtract(this.amountRefunded);
  }
  get status(): PaymentStatus {
    return paymentStatusOf(this.state.amount, this.amountApplied.amount, this.amountRefunded.amount);
  }

  /** Refunds made since the last save, for the repository to insert. */
  pullNewRefunds(): RefundState[] {
    const refunds = this.newRefunds;
    this.newRefunds = [];
    return refunds;
  }

  /** Ledger movements to write with this save (the repository posts them to the customer's ledger). */
  pullMovements(): PaymentLedgerMovement[] {
    const movements = this.movements;
    this.movements = [];
    return movements;
  }

  /**
   * Applies parts of the payment to invoices (the invoices themselves are changed by the
   * caller, CashApplication, in the same step). All or nothing: every line is checked first.
   */
  apply(
    targets: ApplicationTarget[],
    source: ApplicationSource,
    rule: MatchRule | 'manual',
    at: Date,
    customerId?: string,
    /** short pays settled with this match (§13): the invoices' write-offs, made by the caller */
    writeOffs: MatchWriteOff[] = [],
  ): PaymentApplication[] {
    if (targets.length === 0) return [];
    let left = this.amountUnapplied.amount;
    for (const t of targets) {
      if (!Number.isSafeInteger(t.amount) || t.amount <= 0) {
        throw ValidationError.field('amount', 'an application amount must be a positive integer in minor units');
      }
      if (t.amount > left) throw new PaymentOverAppliedError(t.amount, left);
      left -= t.amount;
    }
    const before = this.snapshot();
    // Unidentified cash identified by what it pays: from now on it is this customer's credit.
    if (customerId && this.state.customerId === null) {
      // Only a person (manual) or rules 1–2 (what the payment names) apply money to a payment without a customer.
      if (rule !== 'manual' && rule !== 'remittance' && rule !== 'reference') throw new Error(`rule ${rule} cannot identify a customer`);
      this.takeCustomer(customerId, rule);
    }
    // §14: a payment matched by hand has customer_source "manual".
    if (rule === 'manual') this.state = { ...this.state, customerSource: 'manual' };
    const added = targets.map((t) =>
      PaymentApplication.create({ id: t.applicationId, invoiceId: t.invoiceId, invoiceNumber: t.invoiceNumber, amount: t.amount, source, appliedAt: at }),
    );
    added.forEach((a) => this.applications.add(a));
    const match: PaymentMatch = { status: this.appliedMatchStatus(), rule, suggestions: [], writeOffs: [...this.state.match.writeOffs, ...writeOffs] };
    this.state = { ...this.state, match, updatedAt: at };
    this.record(PaymentEvents.matched(this, before, at));
    return added;
  }

  /** Takes one application back; the caller gives the amount back to the invoice. */
  reverseApplication(applicationId: string, at: Date): PaymentApplication {
    const application = this.applications.find(applicationId);
    if (!application) throw new ApplicationNotFoundError(applicationId);
    if (!application.isActive) throw new ApplicationAlreadyReversedError(applicationId);
    const before = this.snapshot();
    this.applications.reverse(application, at);
    const remaining = this.applications.active();
    const rule = remaining.length === 0 ? null : this.state.match.rule;
    this.state = { ...this.state, match: { ...this.state.match, status: this.appliedMatchStatus(), rule, suggestions: [] }, updatedAt: at };
    this.record(PaymentEvents.applicationReversed(this, before, at));
    return application;
  }

  /**
   * Pays back part of what is unapplied (contract §15; 409 beyond it): a `refund` ledger debit
   * dated today naming the refund, and `payment.refunded`. A review still open stays open while
   * something is left; otherwise the match status follows what is left.
   */
  refund(amount: number, reason: string | null | undefined, at: BusinessTime): RefundState {
    const customerId = this.state.customerId;
    if (customerId === null) {
      throw new InvalidStateError(`Payment ${this.state.id} has no customer yet; match it to an invoice of its customer first.`);
    }
    const refund = newRefund(amount, reason, this.amountUnapplied.amount, `Payment ${this.state.id}`, at.now);
    const before = this.snapshot();
    this.state = { ...this.state, refunds: [...this.state.refunds, refund], updatedAt: at.now };
    this.newRefunds.push(refund);
    if (this.state.match.status !== 'needs_review' || this.amountUnapplied.isZero()) {
      const rule = this.activeApplications.length === 0 ? null : this.state.match.rule;
      this.state = { ...this.state, match: { ...this.state.match, status: this.appliedMatchStatus(), rule, suggestions: [] } };
    }
    this.movements.push({ customerId, type: 'refund', date: at.today, debit: amount, credit: 0, refundId: refund.id });
    this.record(PaymentEvents.refunded(this, before, at.now, presentRefund(refund)));
    return { ...refund };
  }

  /** Automatic matching found several equally good answers: a person has to pick one. */
  needsReview(rule: MatchRule | ReviewRule, suggestions: MatchSuggestion[], at: Date): void {
    const before = this.snapshot();
    this.state = { ...this.state, match: { ...this.state.match, status: 'needs_review', rule, suggestions }, updatedAt: at };
    this.record(PaymentEvents.needsReview(this, before, at));
  }

  /**
   * The payer (or what the payment names) identified the customer of a payment that came
   * without one (§14): from now on it is that customer's payment and credit.
   */
  identify(customerId: string, by: IdentifiedBy, at: Date): void {
    if (this.state.customerId !== null) return;
    this.takeCustomer(customerId, by);
    this.state = { ...this.state, updatedAt: at };
  }

  private takeCustomer(customerId: string, source: CustomerSource): void {
    this.state = { ...this.state, customerId, customerSource: source };
    this.movements.push(this.receivedMovement(customerId));
  }

  /** Nothing applied: unmatched; nothing left to apply (applied or refunded): matched; else partial. */
  private appliedMatchStatus(): MatchStatus {
    if (this.amountApplied.isZero()) return 'unmatched';
    return this.amountUnapplied.isZero() ? 'matched' : 'partial';
  }

  /** The fields a match or reversal changes, for `previous_attributes`. */
  private snapshot(): Record<string, unknown> {
    // Those fields only, as toJSON() presents them (not the whole payment, then eight of its fields).
    const { customerId, amount, refunds, match, customerSource } = this.state;
    const applications = this.applications.all() as readonly PaymentApplicationState[] as PaymentApplicationState[];
    return presentPaymentChanges({ customerId, amount, applications, refunds, match, customerSource });
  }

  private receivedMovement(customerId: string): PaymentLedgerMovement {
    return { customerId, type: 'payment', date: this.state.paymentDate, debit: 0, credit: this.state.amount, refundId: null };
  }

  toSnapshot(): PaymentSnapshot {
    return {
      ...this.state,
      remittance: [...this.state.remittance],
      payer: this.state.payer ? { ...this.state.payer } : null,
      metadata: { ...this.state.metadata },
      applications: this.applications.all().map((a) => a.toState()),
      version: this.version,
    };
  }

  /** The public representation (GET /payments/:id), also the `data.object` of payment events. */
  toJSON(): PaymentJson {
    // toSnapshot()'s fields without its copies: presentPayment builds its own remittance, payer and
    // applications (the applications' getters are their state's fields); metadata is copied as there.
    // Three times per auto-matched payment (created, before and after the match).
    const applications: readonly PaymentApplicationState[] = this.applications.all();
    return presentPayment({ ...this.state, metadata: { ...this.state.metadata }, applications: applications as PaymentApplicationState[], version: this.version });
  }
}

/** The payer as given (bounded text, normalised account); null when nothing about it was said. */
function payerOf(payer: Payer | null | undefined): Payer | null {
  if (!payer) return null;
  const text = (value: string | null, field: string) => {
    const trimmed = value?.trim() || null;
    if (trimmed && trimmed.length > MAX_PAYER_TEXT) throw ValidationError.field(`payer.${field}`, `payer.${field} must be at most ${MAX_PAYER_TEXT} characters`);
    return trimmed;
  };
  const result: Payer = { name: text(payer.name, 'name'), account: normalizePayerAccount(text(payer.account, 'account')), bankId: text(payer.bankId, 'bank_id') };
  return result.name === null && result.account === null && result.bankId === null ? null : result;
}
