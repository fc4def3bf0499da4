import { Logger } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainEvent } from '../../../shared/domain/aggregate-root';
import { BusinessTime } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { normalizePayerAccount, normalizePayerName } from '../../../shared/domain/payer';
import { TransactionalEvents } from '../../../shared/application/transactional-events';
import { LedgerEntryInput, LedgerWriter } from '../../customers';
import { Invoice, invoiceLedgerEntry, InvoiceRepository, InvoiceSnapshot } from '../../invoicing';
import { TenantCalendar, TenantSettingsReader } from '../../settings';
import { CashApplication } from '../domain/cash-application.service';
import { CashMatchingPolicy, MatchDecision, PaymentToMatch } from '../domain/matching/cash-matching.policy';
import { MAX_SUGGESTIONS } from '../domain/matching/cash-matching.policy';
import { COMBINATION_POOL_SIZE } from '../domain/matching/combination-search';
import { parseInvoiceReferences } from '../domain/matching/invoice-reference.parser';
import { byDueDate, isOpen, MatchCandidate, MatchCandidateSource, PayerCandidate } from '../domain/matching/match-candidate';
import { MatchOutcomeRecorder } from '../domain/match-outcome.recorder';
import { Payment } from '../domain/payment.aggregate';
import { PaymentRepository } from '../domain/payment.repository';
import { MatchStatus, PaymentSnapshot } from '../domain/payment.snapshot';
import { CustomerMatchingLock, GroupMatchCandidates, GroupReads, NamedQuery, payerKey } from './matching-ports';
import { paymentLedgerEntry } from './payment-ledger';
import { paymentToMatch } from './payment-to-match';
import { RecordPaymentCommand, RecordPaymentInput, recordedPayment } from './record-payment.command';

/** What became of one input: its payment and match status, or the payment rules' refusal (nothing written for it). */
export type GroupPaymentResult = { paymentId: string; matchStatus: MatchStatus } | { error: ValidationError };

/**
 * Records a group of payments (a bank import group) with exactly the outcome of one
 * RecordPaymentCommand per input, in order — same identification, same matching decisions, same
 * rows, events and ledger lines — but set-wise: a few reads for the whole group, one write per
 * table. Inputs are bank credits: no customer_id, automatic matching `strict`; anything else is
 * recorded input by input.
 */
export class RecordPaymentGroupCommand {
  constructor(
    readonly tenantId: string,
    readonly inputs: readonly RecordPaymentInput[],
    /** the group's named invoices and payer look-ups, read by the caller's plan (one per input) */
    readonly reads?: GroupReads,
  ) {}
}

/** Decision passes before the group is recorded input by input instead (each pass locks what the last one chose). */
const MAX_PASSES = 4;

interface Entry {
  index: number;
  payment: Payment;
  toMatch: PaymentToMatch;
  named: NamedQuery;
  /** the payer look-ups identifyPayer would make: account first, then name */
  payerKeys: { kind: 'account' | 'name'; key: string }[];
}

type State = MatchCandidate | null;

/**
 * How (ADR 0037): every input's payment is built in memory (Payment.record: the same checks);
 * the invoices each payment names and each payer look-up are read for the whole group at once;
 * the customers a payer can identify are locked (advisory, sorted) before any pool is read; then
 * the same CashMatchingPolicy decides payment after payment over those reads, each seeing what
 * the ones before it took (the invoices' amounts due and statuses are carried along in memory).
 * The invoices chosen are locked in one statement in id order and compared with what the
 * decisions saw; a difference (a manual match in between) makes the decisions run again on the
 * locked figures. Then the real aggregates are changed in order by CashApplication.apply, and
 * everything is written: invoices in one UPDATE, payments and applications in one INSERT each,
 * ledger lines in one INSERT in the per-payment order, events to the outbox in that order.
 */
@CommandHandler(RecordPaymentGroupCommand)
export class RecordPaymentGroupHandler implements ICommandHandler<RecordPaymentGroupCommand, GroupPaymentResult[]> {
  private readonly logger = new Logger(RecordPaymentGroupHandler.name);
  private readonly policy = new CashMatchingPolicy();

  constructor(
    private readonly payments: PaymentRepository,
    private readonly invoices: InvoiceRepository,
    private readonly candidates: GroupMatchCandidates,
    private readonly matchingLock: CustomerMatchingLock,
    private readonly calendar: TenantCalendar,
    private readonly settings: TenantSettingsReader,
    private readonly outcomes: MatchOutcomeRecorder,
    private readonly ledger: LedgerWriter,
    private readonly events: TransactionalEvents,
    private readonly commands: CommandBus,
  ) {}

  async execute({ tenantId, inputs, reads }: RecordPaymentGroupCommand): Promise<GroupPaymentResult[]> {
    if (inputs.some((i) => (i.customer_id ?? null) !== null || (i.auto_match !== undefined && i.auto_match !== 'strict'))) {
      return this.oneByOne(tenantId, inputs);
    }
    const at = await this.calendar.now(tenantId);
    const settings = await this.settings.get(tenantId);
    const results: GroupPaymentResult[] = new Array(inputs.length);
    const entries: Entry[] = [];
    inputs.forEach((input, index) => {
      try {
        const payment = recordedPayment(tenantId, input, null, undefined, at);
        payment.version = 1; // as insert() leaves it
        const toMatch = paymentToMatch(payment, settings);
        const account = normalizePayerAccount(payment.payer?.account);
        const name = toMatch.payerNameMatching === false ? null : normalizePayerName(payment.payer?.name);
        entries.push({
          index,
          payment,
          toMatch,
          named: {
            ids: payment.remittance.flatMap((l) => (l.invoiceId ? [l.invoiceId] : [])),
            numbers: payment.remittance.flatMap((l) => (l.invoiceNumber ? [l.invoiceNumber] : [])),
            references: parseInvoiceReferences(payment.reference),
          },
          payerKeys: [
            ...(account === null ? [] : [{ kind: 'account' as const, key: account }]),
            ...(name === null ? [] : [{ kind: 'name' as const, key: name }]),
          ],
        });
      } catch (error) {
        // Refused before anything was written (the payment's own checks): one bad input, the others go in.
        if (!(error instanceof ValidationError)) throw error;
        results[index] = { error };
      }
    });
    if (entries.length === 0) return results;

    const named = reads ? entries.map((e) => [...(reads.named[e.index] ?? [])]) : await this.candidates.named(tenantId, entries.map((e) => e.named));
    if (named === null) return this.oneByOne(tenantId, inputs);
    const payers = reads ? new Map(reads.payers) : await this.payerAnswers(tenantId, entries);
    // Every customer a payer identifies on its own is serialised before any of its invoices is read (beforePool).
    const lockedCustomers = new Set<string>();
    for (const e of entries) {
      for (const k of e.payerKeys) {
        const found = payers.get(payerKey(k.kind, k.key, e.payment.currency)) ?? [];
        if (found.length === 0) continue;
        if (found.length === 1) lockedCustomers.add(found[0].id);
        break;
      }
    }
    await this.matchingLock.lockMany(tenantId, [...lockedCustomers]);

    const locked = new Map<string, Invoice>();
    const originals = new Map<string, InvoiceSnapshot>();
    const base = new Map<string, State>();
    let decisions: (MatchDecision | null)[] | null = null;
    for (let pass = 1; pass <= MAX_PASSES; pass++) {
      const { made, seen } = await this.decideAll(tenantId, entries, named, payers, base, lockedCustomers);
      const toLock = [...new Set(made.flatMap((d) => (d?.outcome === 'apply' ? d.allocations.map((a) => a.invoiceId) : [])))].filter((id) => !locked.has(id));
      if (toLock.length === 0) {
        decisions = made;
        break;
      }
      const fresh = new Map((await this.invoices.findByIdsForUpdate(tenantId, toLock)).map((i) => [i.id, i]));
      let stale = false;
      for (const id of toLock) {
        const invoice = fresh.get(id);
        const now = invoice ? candidateOf(invoice) : null;
        if (invoice) {
          locked.set(id, invoice);
          originals.set(id, invoice.toScalarSnapshot()); // scalars: what saveSettlements compares
        }
        if (!sameFigures(seen.get(id) ?? null, now)) stale = true;
        base.set(id, now);
      }
      if (!stale) {
        decisions = made;
        break;
      }
    }
    if (decisions === null) {
      this.logger.warn(`payment group of ${inputs.length}: candidates kept changing; recorded one by one`);
      return this.oneByOne(tenantId, inputs);
    }
    const { ledger, events } = this.apply(entries, decisions, locked, at, results);
    // Invoices (locked: one UPDATE), payments and their applications, ledger lines in order, the outbox.
    await this.invoices.saveSettlements([...locked.keys()].sort().map((id) => ({ invoice: locked.get(id)!, original: originals.get(id)! })));
    await this.payments.insertMany(entries.map((e) => e.payment));
    await this.ledger.postMany(ledger);
    this.events.enqueue(events);
    return results;
  }

  /** The payer look-ups of the whole group, one statement: answers by (kind, key, currency). */
  private async payerAnswers(tenantId: string, entries: Entry[]): Promise<Map<string, PayerCandidate[]>> {
    const queries = new Map<string, { kind: 'account' | 'name'; key: string; currency: string }>();
    for (const e of entries) for (const k of e.payerKeys) queries.set(payerKey(k.kind, k.key, e.payment.currency), { ...k, currency: e.payment.currency });
    const list = [...queries.values()];
    const answers = await this.candidates.payers(tenantId, list);
    return new Map(list.map((q, i) => [payerKey(q.kind, q.key, q.currency), answers[i]]));
  }

  /**
   * One decision per entry, in order, by the policy, over the group's reads: each invoice as
   * first read (or as locked, `base`) minus what the entries before took from it. `seen` is
   * the state each invoice was first taken at: what the locked rows must still show.
   */
  private async decideAll(
    tenantId: string,
    entries: Entry[],
    named: MatchCandidate[][],
    payers: Map<string, PayerCandidate[]>,
    base: Map<string, State>,
    lockedCustomers: Set<string>,
  ): Promise<{ made: (MatchDecision | null)[]; seen: Map<string, State> }> {
    const seen = new Map<string, State>();
    const state = new Map<string, State>();
    /** invoices the group has changed so far, by customer and currency */
    const changed = new Map<string, Set<string>>();
    const current = (read: MatchCandidate): State => {
      if (state.has(read.id)) return state.get(read.id)!;
      const first = base.has(read.id) ? base.get(read.id)! : read;
      seen.set(read.id, first);
      state.set(read.id, first);
      return first;
    };
    const made: (MatchDecision | null)[] = [];
    for (const [n, e] of entries.entries()) {
      if (e.payment.autoMatch === 'none') {
        made.push(null);
        continue;
      }
      const source: MatchCandidateSource = {
        named: async () => named[n].map(current).filter((c): c is MatchCandidate => c !== null),
        payers: async (q) => {
          const known = payers.get(payerKey(q.kind, q.key, q.currency));
          return known ?? (await this.candidates.payers(tenantId, [q]))[0];
        },
        pool: async (q) => {
          if (q.oldestFirst) throw new Error('set-wise matching takes strict payments only');
          const mine = [...(changed.get(`${q.customerId}|${q.currency}`) ?? [])];
          const read = await this.candidates.pool(tenantId, { customerId: q.customerId, currency: q.currency, amount: q.amount, nearWithin: q.nearWithin ?? 0 }, mine.length);
          // What the per-payment read would answer now: the database's rows with this group's changes.
          const all = new Map<string, MatchCandidate>();
          for (const r of read) {
            const c = current(r);
            if (c) all.set(c.id, c);
          }
          for (const id of mine) {
            const c = state.get(id);
            if (c) all.set(id, c);
            else all.delete(id);
          }
          const open = [...all.values()].filter((c) => c.customerId === q.customerId && c.currency === q.currency && isOpen(c) && !c.disputed).sort(byDueDate);
          const near = q.nearWithin ?? 0;
          const parts = [
            ...open.slice(0, COMBINATION_POOL_SIZE),
            ...open.filter((c) => c.amountDue === q.amount).slice(0, MAX_SUGGESTIONS + 1),
            ...(near > 0 ? open.filter((c) => c.amountDue > q.amount && c.amountDue <= q.amount + near).slice(0, MAX_SUGGESTIONS + 1) : []),
          ];
          return [...new Map(parts.map((c) => [c.id, c])).values()];
        },
      };
      const decision = await this.policy.decide(e.toMatch, source, async (customerId) => {
        if (lockedCustomers.has(customerId)) return;
        await this.matchingLock.lock(tenantId, customerId);
        lockedCustomers.add(customerId);
      });
      made.push(decision);
      if (decision.outcome !== 'apply') continue;
      // What CashApplication.apply will do to the invoices' figures: paid (and written off), partially or in full.
      const taken = new Map<string, number>();
      for (const a of [...decision.allocations, ...decision.writeOffs]) taken.set(a.invoiceId, (taken.get(a.invoiceId) ?? 0) + a.amount);
      for (const [id, amount] of taken) {
        const before = state.get(id)!;
        const amountDue = before.amountDue - amount;
        state.set(id, { ...before, amountDue, status: amountDue > 0 ? 'partially_paid' : 'paid' });
        const key = `${before.customerId}|${before.currency}`;
        if (!changed.has(key)) changed.set(key, new Set());
        changed.get(key)!.add(id);
      }
    }
    return { made, seen };
  }

  /**
   * The decisions on the real aggregates, entry after entry, as AutoMatchPaymentHandler makes
   * them: identification, review, application (with short-pay write-offs). Each entry's invoice
   * changes are closed like a save (one version per entry); its events and ledger movements are
   * taken in the order the per-entry path writes them.
   */
  private apply(
    entries: Entry[],
    decisions: (MatchDecision | null)[],
    locked: Map<string, Invoice>,
    at: BusinessTime,
    results: GroupPaymentResult[],
  ): { ledger: LedgerEntryInput[]; events: DomainEvent[] } {
    const ledger: LedgerEntryInput[] = [];
    const events: DomainEvent[] = [];
    for (const [n, e] of entries.entries()) {
      const { payment } = e;
      const decision = decisions[n];
      events.push(...payment.pullEvents()); // payment.created, published by the insert
      let saved = false;
      if (decision !== null) {
        if (decision.identified) payment.identify(decision.identified.customerId, decision.identified.by, at.now);
        if (decision.outcome === 'unmatched') {
          saved = decision.identified !== undefined;
          this.outcomes.record(payment.tenantId, 'unmatched', null);
        } else if (decision.outcome === 'review') {
          payment.needsReview(decision.rule, decision.suggestions, at.now);
          saved = true;
          this.outcomes.record(payment.tenantId, 'needs_review', decision.rule);
        } else {
          const unchanged = decision.basis.every((seen) => {
            const now = locked.get(seen.id);
            return now !== undefined && now.status === seen.status && now.amountDue.amount === seen.amountDue && now.isDisputed === seen.disputed;
          });
          // The decisions were checked against the locked rows: a difference here is a fault, not a race.
          if (!unchanged) throw new Error(`payment group: the invoices of payment ${payment.id} are not what its decision saw`);
          CashApplication.apply(
            payment,
            decision.allocations.map((a) => ({ invoice: locked.get(a.invoiceId)!, amount: a.amount })),
            'auto',
            decision.rule,
            at,
            decision.writeOffs,
          );
          // Closed in id order (as locked and saved per payment), each payment's change its own version.
          for (const id of [...new Set(decision.allocations.map((a) => a.invoiceId))].sort()) {
            const invoice = locked.get(id)!;
            if (invoice.version === invoice.expectedVersion) continue; // (the aggregate's version is its snapshot's)
            // Its ids and number, read off the aggregate (no copy of the invoice and its lines).
            ledger.push(...invoice.pullMovements().map((m) => invoiceLedgerEntry(invoice, m)));
            events.push(...invoice.pullEvents());
            invoice.markPersisted();
          }
          saved = true;
          this.outcomes.record(payment.tenantId, payment.match.status, payment.match.rule);
        }
      }
      if (saved) {
        payment.version = 2; // insert() then one save()
        events.push(...payment.pullEvents());
        ledger.push(...payment.pullMovements().map((m) => paymentLedgerEntry(payment, m)));
      }
      results[e.index] = { paymentId: payment.id, matchStatus: payment.match.status };
    }
    return { ledger, events };
  }

  /** The per-payment path, input after input (RecordPaymentCommand): for what set-wise does not take. */
  private async oneByOne(tenantId: string, inputs: readonly RecordPaymentInput[]): Promise<GroupPaymentResult[]> {
    const results: GroupPaymentResult[] = [];
    for (const input of inputs) {
      try {
        const { id: paymentId } = await this.commands.execute<RecordPaymentCommand, PaymentSnapshot>(new RecordPaymentCommand(tenantId, input));
        const payment = await this.payments.findByIdForUpdate(tenantId, paymentId);
        results.push({ paymentId, matchStatus: payment!.match.status });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        results.push({ error });
      }
    }
    return results;
  }
}


function candidateOf(invoice: Invoice): MatchCandidate {
  return {
    id: invoice.id,
    number: invoice.number,
    customerId: invoice.customerId,
    currency: invoice.currency,
    status: invoice.status,
    amountDue: invoice.amountDue.amount,
    dueDate: invoice.dueDate,
    disputed: invoice.isDisputed,
  };
}

/** What the decision relies on (as AutoMatchPaymentHandler re-checks it): status, amount due, dispute. */
function sameFigures(a: State, b: State): boolean {
  if (a === null || b === null) return a === b;
  return a.status === b.status && a.amountDue === b.amountDue && a.disputed === b.disputed && a.customerId === b.customerId && a.currency === b.currency;
}
