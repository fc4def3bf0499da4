import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DomainEvent } from '../../../shared/domain/aggregate-root';
import { TransactionalEvents } from '../../../shared/application/transactional-events';
import { Invoice, InvoiceRepository } from '../../invoicing';
import { TenantCalendar, TenantSettingsReader } from '../../settings';
import { CashApplication } from '../domain/cash-application.service';
import { CashMatchingPolicy, MatchDecision } from '../domain/matching/cash-matching.policy';
import { Payment } from '../domain/payment.aggregate';
import { PAYMENT_CREATED } from '../domain/payment.events';
import { MatchOutcomeRecorder } from '../domain/match-outcome.recorder';
import { PaymentRepository } from '../domain/payment.repository';
import { CustomerMatchingLock, MatchCandidates } from './matching-ports';
import { paymentToMatch } from './payment-to-match';

/** A decision read without locks may be overtaken by a manual match; it is re-made at most this often. */
const MAX_DECISIONS = 3;

/**
 * Automatic cash application (contract §8), run on payment.created inside the transaction that
 * records the payment: the 201 already shows the applications, and a crash never leaves a
 * payment half-applied.
 *
 * Concurrency: auto-matching for one customer is serialised by a transaction-scoped advisory
 * lock, so concurrent payments of one customer decide one after the other on fresh data.
 * Candidates are read without locks; the invoices chosen are then locked in id order
 * (after the payment row, before the customer row: the order every cash-application
 * transaction uses) and compared with what the decision saw. A manual match may have changed
 * one in between; then the decision is made again.
 */
@Injectable()
export class AutoMatchPaymentHandler implements OnModuleInit {
  private readonly logger = new Logger(AutoMatchPaymentHandler.name);
  private readonly policy = new CashMatchingPolicy();

  constructor(
    private readonly events: TransactionalEvents,
    private readonly payments: PaymentRepository,
    private readonly invoices: InvoiceRepository,
    private readonly candidates: MatchCandidates,
    private readonly matchingLock: CustomerMatchingLock,
    private readonly calendar: TenantCalendar,
    private readonly settings: TenantSettingsReader,
    private readonly outcomes: MatchOutcomeRecorder,
  ) {}

  onModuleInit(): void {
    this.events.subscribe(PAYMENT_CREATED, (event) => this.handle(event));
  }

  async handle(event: DomainEvent): Promise<void> {
    const payment = await this.payments.findByIdForUpdate(event.tenantId, event.aggregateId);
    if (!payment || payment.autoMatch === 'none') return;
    if (payment.customerId) await this.lockCustomerMatching(payment.tenantId, payment.customerId);
    const source = this.candidates.forTenant(payment.tenantId);
    const settings = await this.settings.get(payment.tenantId);
    const toMatch = paymentToMatch(payment, settings);
    // A customer identified by the payer is serialised like one given with the payment, before its invoices are read.
    const lockIdentified = (customerId: string) =>
      customerId === payment.customerId ? Promise.resolve() : this.lockCustomerMatching(payment.tenantId, customerId);

    for (let attempt = 1; attempt <= MAX_DECISIONS; attempt++) {
      const decision = await this.policy.decide(
        toMatch,
        source,
        lockIdentified,
      );
      const at = await this.calendar.now(payment.tenantId);
      if (decision.identified) payment.identify(decision.identified.customerId, decision.identified.by, at.now);
      if (decision.outcome === 'unmatched') {
        if (decision.identified) await this.payments.save(payment);
        this.outcomes.record(payment.tenantId, 'unmatched', null);
        return;
      }
      if (decision.outcome === 'review') {
        payment.needsReview(decision.rule, decision.suggestions, at.now);
        await this.payments.save(payment);
        this.outcomes.record(payment.tenantId, 'needs_review', decision.rule);
        return;
      }
      const locked = await this.invoices.findByIdsForUpdate(payment.tenantId, decision.allocations.map((a) => a.invoiceId));
      if (!this.unchanged(decision, locked)) continue;
      const byId = new Map(locked.map((i) => [i.id, i]));
      CashApplication.apply(
        payment,
        decision.allocations.map((a) => ({ invoice: byId.get(a.invoiceId)!, amount: a.amount })),
        'auto',
        decision.rule,
        at,
        decision.writeOffs,
      );
      await this.saveAll(payment, locked);
      this.outcomes.record(payment.tenantId, payment.match.status, payment.match.rule);
      return;
    }
    this.outcomes.record(payment.tenantId, 'unmatched', null);
    this.logger.warn(`payment ${payment.id}: candidates kept changing; left unmatched for a manual match`);
  }

  /** Invoices first (in id order, as locked), then the payment, whose save posts the ledger credit. */
  private async saveAll(payment: Payment, invoices: Invoice[]): Promise<void> {
    for (const invoice of invoices) await this.invoices.save(invoice);
    await this.payments.save(payment);
  }

  /** Still what the decision was based on: same status and amount due for every chosen invoice. */
  private unchanged(decision: Extract<MatchDecision, { outcome: 'apply' }>, locked: Invoice[]): boolean {
    const byId = new Map(locked.map((i) => [i.id, i]));
    return decision.basis.every((seen) => {
      const now = byId.get(seen.id);
      return now !== undefined && now.status === seen.status && now.amountDue.amount === seen.amountDue && now.isDisputed === seen.disputed;
    });
  }

  private lockCustomerMatching(tenantId: string, customerId: string): Promise<void> {
    return this.matchingLock.lock(tenantId, customerId);
  }
}
