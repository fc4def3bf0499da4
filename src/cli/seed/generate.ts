import type { LineItemSnapshot } from '../../modules/invoicing';
import { isOpenStatus } from '../../shared/domain/receivable';
import { Random } from './random';
import { TypeIdFactory } from './typeid';

/**
 * Generates one tenant's receivables history as plain rows: customers, invoices (with
 * their line items), payments, applications and the customers' ledger. Everything follows
 * the rules the service applies when the same history happens through the API:
 * - line math per contract §7 (integers, round half up), checked against the Invoice
 *   aggregate by the seed on a sample;
 * - status follows applications (paid ⇔ amount_paid = total, partially_paid otherwise),
 *   voids only without applications, write-offs credit what was still due;
 * - credit notes, refunds and write-offs (§15) as the service makes them: a credit note for an
 *   open invoice is applied at once up to its amount due, one for a paid invoice stays credit
 *   (and is sometimes refunded); unapplied cash is sometimes refunded; small and bad balances
 *   are partly written off;
 * - every change posts its ledger entry (§9) on the right date, so each customer's
 *   balance = open amount due − unapplied payments − credit left on notes;
 * - version = 1 + one per saved change; ids carry their created_at (time-sortable).
 */

const DAY = 86_400_000;

export interface CustomerRow {
  id: string;
  name: string;
  email: string;
  externalId: string;
  phone: string;
  billingAddress: Record<string, string | null>;
  currency: string;
  paymentTermsDays: number;
  creditLimit: number | null;
  creditHold: boolean;
  metadata: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Lines are stored exactly as the Invoice aggregate stores them. */
export type LineItemRow = LineItemSnapshot;

export interface DisputeRow {
  status: 'open' | 'resolved';
  reason: string;
  amount: number;
  openedAt: Date;
  resolvedAt: Date | null;
}

export interface InvoiceRow {
  id: string;
  number: string;
  customerId: string;
  status: 'draft' | 'open' | 'partially_paid' | 'paid' | 'void' | 'uncollectible';
  currency: string;
  issueDate: string;
  dueDate: string;
  poNumber: string | null;
  memo: string | null;
  lineItems: LineItemRow[];
  subtotal: number;
  discountTotal: number;
  taxTotal: number;
  total: number;
  amountPaid: number;
  amountCredited: number;
  amountWrittenOff: number;
  dispute: DisputeRow | null;
  metadata: Record<string, unknown>;
  finalizedAt: Date | null;
  paidAt: Date | null;
  paidOn: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ApplicationRow {
  id: string;
  paymentId: string;
  invoiceId: string;
  invoiceNumber: string;
  amount: number;
  source: 'auto' | 'manual';
  appliedAt: Date;
}

export interface PaymentRow {
  id: string;
  customerId: string | null;
  amount: number;
  amountApplied: number;
  amountRefunded: number;
  currency: string;
  paymentDate: string;
  method: 'ach' | 'wire' | 'check' | 'card' | 'cash' | 'other';
  reference: string | null;
  remittance: { invoice_number: string; amount: number }[];
  status: 'unapplied' | 'partially_applied' | 'applied';
  autoMatch: 'strict' | 'oldest_first' | 'none';
  matchStatus: 'matched' | 'partial' | 'unmatched' | 'needs_review';
  matchRule: 'remittance' | 'reference' | 'exact_amount' | 'combination' | 'oldest_first' | 'manual' | null;
  metadata: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  applications: ApplicationRow[];
}

export interface CreditNoteRow {
  id: string;
  number: string;
  customerId: string;
  invoiceId: string | null;
  status: 'open' | 'partially_applied' | 'applied';
  currency: string;
  amount: number;
  amountApplied: number;
  amountRefunded: number;
  reason: 'duplicate' | 'product_unsatisfactory' | 'order_change' | 'discount';
  version: number;
  createdAt: Date;
  updatedAt: Date;
  applications: { id: string; invoiceId: string; amount: number; appliedAt: Date }[];
}

export interface WriteOffRow {
  id: string;
  invoiceId: string;
  amount: number;
  reason: 'small_balance' | 'bad_debt';
  createdAt: Date;
}

export interface RefundRow {
  id: string;
  paymentId: string | null;
  creditNoteId: string | null;
  customerId: string;
  currency: string;
  amount: number;
  createdAt: Date;
}

export interface LedgerRow {
  id: string;
  customerId: string;
  entryDate: string;
  type: 'invoice' | 'payment' | 'void' | 'write_off' | 'adjustment' | 'credit_note' | 'refund';
  sourceType: 'invoice' | 'payment' | 'credit_note' | 'refund';
  sourceId: string;
  /** the invoice or payment, for the reference/description the service would write */
  invoice?: InvoiceRow;
  payment?: PaymentRow;
  /** what the service writes for credit notes, refunds and §15 write-offs */
  text?: { reference: string; description: string };
  debit: number;
  credit: number;
  createdAt: Date;
}

export interface CustomerHistory {
  invoices: InvoiceRow[];
  payments: PaymentRow[];
  ledger: LedgerRow[];
  creditNotes: CreditNoteRow[];
  writeOffs: WriteOffRow[];
  refunds: RefundRow[];
}

// ---- dates (UTC, whole days) ----

export function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY);
}

export function dateOf(day: number): string {
  return new Date(day * DAY).toISOString().slice(0, 10);
}

// ---- vocabulary ----

const ADJECTIVES = ['Northwind', 'Blue Harbor', 'Summit', 'Granite', 'Evergreen', 'Silverline', 'Redwood', 'Lakeside', 'Ironbridge', 'Brightwater', 'Pioneer', 'Atlas', 'Cedar', 'Harbor', 'Meridian', 'Oakridge', 'Sterling', 'Union', 'Westfield', 'Keystone'];
const NOUNS = ['Traders', 'Logistics', 'Foods', 'Manufacturing', 'Health', 'Analytics', 'Outfitters', 'Engineering', 'Builders', 'Media', 'Pharma', 'Systems', 'Retail', 'Energy', 'Farms', 'Labs', 'Textiles', 'Motors', 'Hospitality', 'Supply'];
const SUFFIXES = ['Inc.', 'LLC', 'Ltd', 'GmbH', 'Co.', 'Group', 'Corp.', 'SA'];
const PRODUCTS: readonly (readonly [string, number, number, boolean])[] = [
  // description, min and max unit amount (minor units), fractional quantities
  ['Consulting hours', 9_000, 30_000, true],
  ['Software subscription (monthly)', 2_900, 99_900, false],
  ['Support plan', 19_900, 249_900, false],
  ['Implementation services', 50_000, 2_500_000, false],
  ['Training session', 45_000, 350_000, false],
  ['License seat', 1_200, 15_000, false],
  ['Hardware: laptop', 89_900, 329_900, false],
  ['Freight and handling', 1_500, 45_000, false],
  ['Cloud usage (GB-months)', 8, 250, true],
  ['Maintenance visit', 12_000, 95_000, true],
];
const TAX_RATES: Record<string, readonly (readonly [string, number])[]> = {
  // [rate as decimal text, weight]
  usd: [['0', 40], ['7.25', 25], ['8.875', 20], ['6.5', 15]],
  eur: [['19', 45], ['20', 25], ['21', 20], ['0', 10]],
  gbp: [['20', 80], ['0', 20]],
};
const CITIES: Record<string, readonly (readonly [string, string | null, string, string])[]> = {
  usd: [['Seattle', 'WA', '98101', 'US'], ['Austin', 'TX', '73301', 'US'], ['Chicago', 'IL', '60601', 'US'], ['Boston', 'MA', '02108', 'US'], ['Denver', 'CO', '80202', 'US']],
  eur: [['Berlin', null, '10115', 'DE'], ['Paris', null, '75001', 'FR'], ['Amsterdam', null, '1012', 'NL'], ['Madrid', null, '28001', 'ES']],
  gbp: [['London', null, 'EC1A 1BB', 'GB'], ['Manchester', null, 'M1 1AE', 'GB'], ['Leeds', null, 'LS1 1UR', 'GB']],
};
const DISPUTE_REASONS = ['Goods not received', 'Quantity does not match the purchase order', 'Pricing differs from the quote', 'Service not performed as agreed', 'Duplicate invoice'];

/** round_half_up(x / d) for x ≥ 0 and an even d (both safe integers). */
function roundHalfUp(x: number, d: number): number {
  return Math.floor((x + d / 2) / d);
}

/** decimal text ("7.25") → value × 10^4 */
function scaled(text: string): number {
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * 10_000 + Number(frac.padEnd(4, '0'));
}

function scaledText(s: number): string {
  const whole = Math.floor(s / 10_000);
  const frac = String(s % 10_000).padStart(4, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

type Profile = 'prompt' | 'slow' | 'late';

export interface TenantPlan {
  customers: CustomerRow[];
  /** per customer: the invoices' created_at (ms), ascending */
  invoiceTimes: Float64Array[];
  /** per customer: invoice numbers, parallel to invoiceTimes */
  invoiceNumbers: Uint32Array[];
  /** per customer: how many payments to generate */
  paymentCounts: number[];
  profiles: Profile[];
}

export class TenantGenerator {
  readonly ids: TypeIdFactory;
  private readonly asOfDay: number;
  private readonly startDay: number;
  /** nothing may be dated after the moment the seed runs */
  private readonly nowMs: number;
  /** credit notes numbered so far (CN-000001… per tenant, in the order generated) */
  creditNoteCount = 0;

  constructor(
    private readonly random: Random,
    asOf: string,
    nowMs: number,
  ) {
    this.ids = new TypeIdFactory(random);
    this.asOfDay = dayNumber(asOf);
    this.startDay = this.asOfDay - 3 * 365;
    this.nowMs = Math.min(nowMs, (this.asOfDay + 1) * DAY - 1);
  }

  /**
   * Decides who gets how many invoices and payments, and numbers every invoice in
   * creation order across the tenant (INV-000001 is the oldest), as the service would.
   */
  plan(counts: { invoices: number; customers: number; payments: number }, largest = 10_000): TenantPlan {
    const r = this.random;
    const n = counts.customers;
    // One large account with 10,000 invoices (at most a third of them on small seeds); the
    // rest log-normally distributed, as receivables usually are.
    const whale = n > 1 ? Math.min(largest, Math.floor(counts.invoices / 3)) : counts.invoices;
    const weights = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : Math.exp(r.normal())));
    const invoiceCounts = apportion(counts.invoices - whale, weights);
    invoiceCounts[0] += whale;
    const paymentCounts = apportion(counts.payments, invoiceCounts.map((c) => c + 0.01));

    const customers: CustomerRow[] = [];
    const profiles: Profile[] = [];
    const invoiceTimes: Float64Array[] = [];
    for (let i = 0; i < n; i++) {
      // Most customers exist for the whole three years; some joined later.
      const sinceDay = i === 0 || r.chance(0.6) ? this.startDay : this.startDay + r.int(0, 2 * 365);
      const createdAt = new Date((sinceDay - r.int(1, 30)) * DAY + r.int(8, 17) * 3_600_000 + r.int(0, 3_599_999));
      customers.push(this.customer(i, createdAt));
      profiles.push(i === 0 ? 'prompt' : r.weighted<Profile>([['prompt', 50], ['slow', 35], ['late', 15]]));
      const times = new Float64Array(invoiceCounts[i]);
      const span = this.asOfDay - sinceDay + 1;
      for (let k = 0; k < times.length; k++) {
        const day = sinceDay + Math.floor(r.next() * span);
        times[k] = Math.min(this.nowMs - 1000, day * DAY + r.int(7, 18) * 3_600_000 + r.int(0, 3_599_999));
      }
      times.sort();
      invoiceTimes.push(times);
    }
    // Numbers follow creation order over the whole tenant.
    const total = invoiceCounts.reduce((a, b) => a + b, 0);
    const order = new Uint32Array(total);
    const owner = new Uint32Array(total);
    const flat = new Float64Array(total);
    let k = 0;
    invoiceTimes.forEach((times, c) => {
      for (let j = 0; j < times.length; j++, k++) {
        flat[k] = times[j];
        owner[k] = c;
        order[k] = k;
      }
    });
    order.sort((a, b) => flat[a] - flat[b] || a - b);
    const invoiceNumbers = invoiceTimes.map((t) => new Uint32Array(t.length));
    const offsets = new Uint32Array(n + 1);
    for (let c = 0; c < n; c++) offsets[c + 1] = offsets[c] + invoiceTimes[c].length;
    for (let rank = 0; rank < total; rank++) {
      const slot = order[rank];
      const c = owner[slot];
      invoiceNumbers[c][slot - offsets[c]] = rank + 1;
    }
    return { customers, invoiceTimes, invoiceNumbers, paymentCounts, profiles };
  }

  private customer(i: number, createdAt: Date): CustomerRow {
    const r = this.random;
    const currency = i === 0 ? 'usd' : r.weighted([['usd', 80], ['eur', 12], ['gbp', 8]]);
    const name = `${r.pick(ADJECTIVES)} ${r.pick(NOUNS)} ${r.pick(SUFFIXES)}`;
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '');
    const [city, region, postal, country] = r.pick(CITIES[currency]);
    const hold = r.chance(0.02);
    return {
      id: this.ids.make('cus', createdAt.getTime()),
      name: i === 0 ? 'Globex Corporation' : name,
      email: `ap.${i + 1}@${i === 0 ? 'globex' : slug}.example.com`,
      externalId: `CRM-${String(i + 1).padStart(6, '0')}`,
      phone: `+1-555-${String(r.int(100, 999))}-${String(r.int(1000, 9999))}`,
      billingAddress: { line1: `${r.int(1, 9999)} ${r.pick(['Main St', 'Market St', 'Harbor Rd', 'High St', 'Station Rd'])}`, line2: null, city, region, postal_code: postal, country },
      currency,
      paymentTermsDays: i === 0 ? 30 : r.weighted([[30, 50], [45, 15], [60, 15], [15, 10], [0, 5], [90, 5]]),
      creditLimit: i === 0 ? null : r.chance(0.6) ? r.pick([500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000]) : null,
      creditHold: hold,
      metadata: { segment: i === 0 ? 'enterprise' : r.weighted([['enterprise', 10], ['mid_market', 30], ['smb', 60]]) },
      // Putting a customer on hold is one PATCH after creation.
      version: hold ? 2 : 1,
      createdAt,
      updatedAt: hold ? new Date(Math.min(this.nowMs, createdAt.getTime() + r.int(30, 700) * DAY)) : createdAt,
    };
  }

  lineItems(currency: string, at: number): LineItemRow[] {
    const r = this.random;
    const count = r.weighted([[1, 45], [2, 30], [3, 15], [4, 7], [6, 3]]);
    const lines: LineItemRow[] = [];
    for (let i = 0; i < count; i++) {
      const [description, min, max, fractional] = r.pick(PRODUCTS);
      const quantity4 = fractional && r.chance(0.6) ? r.int(2, 160) * 2_500 : r.int(1, 20) * 10_000;
      const unit = Math.round(Math.exp(Math.log(min) + r.next() * (Math.log(max) - Math.log(min))));
      const gross = roundHalfUp(quantity4 * unit, 10_000);
      const discount = r.chance(0.1) ? Math.floor((gross * r.int(5, 15)) / 100) : 0;
      const amount = gross - discount;
      const rate = r.weighted(TAX_RATES[currency] ?? TAX_RATES.usd);
      const tax = roundHalfUp(amount * scaled(rate), 1_000_000);
      lines.push({
        id: this.ids.make('li', at),
        description,
        quantity: scaledText(quantity4),
        unit_amount: unit,
        discount_amount: discount,
        tax_rate: rate,
        gross_amount: gross,
        amount,
        tax_amount: tax,
      });
    }
    return lines;
  }

  /** One customer's invoices, payments, applications and ledger, in the order they happened. */
  history(customer: CustomerRow, profile: Profile, times: Float64Array, numbers: Uint32Array, paymentTarget: number): CustomerHistory {
    const r = this.random;
    const invoices: InvoiceRow[] = [];
    const ledger: LedgerRow[] = [];
    /** money that will arrive for an invoice: [invoice, amount, day] */
    const intents: { invoice: InvoiceRow; amount: number; day: number }[] = [];
    const writeOffs: { invoice: InvoiceRow; day: number }[] = [];

    for (let k = 0; k < times.length; k++) {
      const createdMs = times[k];
      const issueDay = Math.floor(createdMs / DAY);
      const age = this.asOfDay - issueDay;
      const lines = this.lineItems(customer.currency, createdMs);
      let subtotal = 0;
      let discountTotal = 0;
      let taxTotal = 0;
      for (const l of lines) {
        subtotal += l.gross_amount;
        discountTotal += l.discount_amount;
        taxTotal += l.tax_amount;
      }
      const total = subtotal - discountTotal + taxTotal;
      const created = new Date(createdMs);
      const invoice: InvoiceRow = {
        id: this.ids.make('inv', createdMs),
        number: `INV-${String(numbers[k]).padStart(6, '0')}`,
        customerId: customer.id,
        status: 'open',
        currency: customer.currency,
        issueDate: dateOf(issueDay),
        dueDate: dateOf(issueDay + customer.paymentTermsDays),
        poNumber: r.chance(0.4) ? `PO-${r.int(10_000, 99_999)}` : null,
        memo: r.chance(0.1) ? 'Thank you for your business.' : null,
        lineItems: lines,
        subtotal,
        discountTotal,
        taxTotal,
        total,
        amountPaid: 0,
        amountCredited: 0,
        amountWrittenOff: 0,
        dispute: null,
        metadata: r.chance(0.2) ? { project: `P-${r.int(100, 999)}` } : {},
        finalizedAt: created,
        paidAt: null,
        paidOn: null,
        version: 1,
        createdAt: created,
        updatedAt: created,
      };
      invoices.push(invoice);

      if (age <= 20 && r.chance(0.03)) {
        // Still being prepared: a draft has no ledger entry and takes no money.
        invoice.status = 'draft';
        invoice.finalizedAt = null;
        continue;
      }
      ledger.push({ id: this.ids.make('led', createdMs), customerId: customer.id, entryDate: invoice.issueDate, type: 'invoice', sourceType: 'invoice', sourceId: invoice.id, invoice, debit: total, credit: 0, createdAt: created });
      if (total === 0) continue;

      if (age >= 2 && r.chance(0.015)) {
        const voidMs = this.at(issueDay + r.int(1, Math.min(30, age)));
        invoice.status = 'void';
        this.touch(invoice, voidMs);
        ledger.push({ id: this.ids.make('led', voidMs), customerId: customer.id, entryDate: dateOf(Math.floor(voidMs / DAY)), type: 'void', sourceType: 'invoice', sourceId: invoice.id, invoice, debit: 0, credit: total, createdAt: new Date(voidMs) });
        continue;
      }

      const terms = customer.paymentTermsDays;
      const delay = Math.max(0, Math.round(
        profile === 'prompt' ? terms - 3 + 5 * r.normal() : profile === 'slow' ? terms + r.int(5, 45) : terms + r.int(30, 120),
      ));
      const neverPays = r.chance(profile === 'late' ? 0.25 : 0.02);
      const payDay = issueDay + delay;
      if (!neverPays && payDay <= this.asOfDay) {
        if (r.chance(0.1) && delay >= 10) {
          // An instalment first, the rest on the pay day.
          const first = Math.max(1, Math.floor((total * r.int(30, 70)) / 100));
          intents.push({ invoice, amount: first, day: issueDay + r.int(1, delay - 5) });
          if (total - first > 0) intents.push({ invoice, amount: total - first, day: payDay });
        } else {
          intents.push({ invoice, amount: total, day: payDay });
        }
      } else if (!neverPays && age >= 1 && r.chance(0.25) && total > 1) {
        // Not due yet or late, but something came in already: partially paid.
        const part = Math.max(1, Math.floor((total * r.int(20, 80)) / 100));
        intents.push({ invoice, amount: Math.min(part, total - 1), day: issueDay + r.int(1, age) });
      } else if (neverPays && age > terms + 180 && r.chance(0.3)) {
        writeOffs.push({ invoice, day: issueDay + terms + 120 + r.int(0, 30) });
      }
    }

    const payments = this.payments(customer, intents, paymentTarget, invoices);

    // Write-offs credit what is still due, after any payment that came in before.
    for (const { invoice, day } of writeOffs) {
      const ms = this.at(Math.min(day, this.asOfDay));
      if (ms < invoice.updatedAt.getTime()) continue;
      const due = invoice.total - invoice.amountPaid;
      if (due <= 0) continue;
      invoice.status = 'uncollectible';
      this.touch(invoice, ms);
      ledger.push({ id: this.ids.make('led', ms), customerId: customer.id, entryDate: dateOf(Math.floor(ms / DAY)), type: 'write_off', sourceType: 'invoice', sourceId: invoice.id, invoice, debit: 0, credit: due, createdAt: new Date(ms) });
    }

    const credit = this.credits(customer, invoices, payments, ledger);

    // Disputes: some open ones on what is still owed, some settled on paid invoices.
    for (const invoice of invoices) {
      const open = invoice.status === 'open' || invoice.status === 'partially_paid';
      if (open && r.chance(0.03)) {
        const openedMs = this.at(Math.min(this.asOfDay, Math.floor(invoice.updatedAt.getTime() / DAY) + r.int(1, 20)));
        if (openedMs <= invoice.updatedAt.getTime()) continue;
        const due = invoice.total - invoice.amountPaid - invoice.amountCredited - invoice.amountWrittenOff;
        invoice.dispute = { status: 'open', reason: r.pick(DISPUTE_REASONS), amount: r.chance(0.7) ? due : Math.max(1, Math.floor(due / 2)), openedAt: new Date(openedMs), resolvedAt: null };
        this.touch(invoice, openedMs);
      } else if (invoice.status === 'paid' && r.chance(0.01)) {
        // Opened and resolved while it was still open, before the money came.
        const issueMs = invoice.createdAt.getTime();
        const paidMs = invoice.paidAt!.getTime();
        if (paidMs - issueMs < 3 * DAY) continue;
        const openedMs = issueMs + DAY;
        const resolvedMs = openedMs + Math.floor((paidMs - openedMs) / 2);
        invoice.dispute = { status: 'resolved', reason: r.pick(DISPUTE_REASONS), amount: invoice.total, openedAt: new Date(openedMs), resolvedAt: new Date(resolvedMs) };
        invoice.version += 2;
      }
    }

    for (const p of payments) {
      if (!p.customerId) continue;
      ledger.push({ id: this.ids.make('led', p.createdAt.getTime()), customerId: p.customerId, entryDate: p.paymentDate, type: 'payment', sourceType: 'payment', sourceId: p.id, payment: p, debit: 0, credit: p.amount, createdAt: p.createdAt });
    }
    // Posting order: the ledger's seq follows when each entry was written.
    ledger.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return { invoices, payments, ledger, ...credit };
  }

  /**
   * Credit notes, refunds and write-offs (§15) on what the payments left, each on a business day
   * after the last change of what it touches: credit notes for open invoices (applied at once up
   * to the amount due) and for paid ones (customer credit, some refunded), refunds of unapplied
   * cash, write-offs of small balances (settling the invoice) and of part of old bad ones.
   */
  private credits(customer: CustomerRow, invoices: InvoiceRow[], payments: PaymentRow[], ledger: LedgerRow[]): Omit<CustomerHistory, 'invoices' | 'payments' | 'ledger'> {
    const r = this.random;
    const creditNotes: CreditNoteRow[] = [];
    const writeOffs: WriteOffRow[] = [];
    const refunds: RefundRow[] = [];
    const post = (ms: number, type: LedgerRow['type'], sourceType: LedgerRow['sourceType'], sourceId: string, debit: number, credit: number, text: LedgerRow['text']) =>
      ledger.push({ id: this.ids.make('led', ms), customerId: customer.id, entryDate: dateOf(Math.floor(ms / DAY)), type, sourceType, sourceId, debit, credit, text, createdAt: new Date(ms) });
    const due = (i: InvoiceRow) => i.total - i.amountPaid - i.amountCredited - i.amountWrittenOff;
    const settle = (i: InvoiceRow, ms: number) => {
      const received = i.amountPaid + i.amountCredited;
      i.status = due(i) > 0 ? (received > 0 ? 'partially_paid' : 'open') : received > 0 ? 'paid' : 'uncollectible';
      if (i.status === 'paid' && !i.paidAt) {
        i.paidAt = new Date(ms);
        i.paidOn = dateOf(Math.floor(ms / DAY));
      }
      this.touch(i, ms);
    };
    const refund = (ms: number, amount: number, owner: { paymentId?: string; creditNoteId?: string }) => {
      const row: RefundRow = { id: this.ids.make('ref', ms), paymentId: owner.paymentId ?? null, creditNoteId: owner.creditNoteId ?? null, customerId: customer.id, currency: customer.currency, amount, createdAt: new Date(ms) };
      refunds.push(row);
      const of = owner.paymentId ? `payment ${payments.find((p) => p.id === owner.paymentId)!.reference ?? owner.paymentId}` : `credit note ${creditNotes.find((n) => n.id === owner.creditNoteId)!.number}`;
      post(ms, 'refund', 'refund', row.id, amount, 0, { reference: row.id, description: `Refund of ${of}` });
    };

    for (const invoice of invoices) {
      const open = isOpenStatus(invoice.status);
      if (!(open || invoice.status === 'paid') || !r.chance(invoice.status === 'paid' ? 0.006 : 0.02)) continue;
      const ms = this.later(invoice.updatedAt.getTime(), 1, 20);
      if (ms === null) continue;
      const amount = Math.max(1, Math.floor((invoice.total * r.int(5, 30)) / 100));
      const take = open ? Math.min(amount, due(invoice)) : 0;
      const number = `CN-${String(this.creditNoteCount + 1).padStart(6, '0')}`;
      this.creditNoteCount++;
      const note: CreditNoteRow = {
        id: this.ids.make('cn', ms),
        number,
        customerId: customer.id,
        invoiceId: invoice.id,
        status: take === 0 ? 'open' : take === amount ? 'applied' : 'partially_applied',
        currency: customer.currency,
        amount,
        amountApplied: take,
        amountRefunded: 0,
        reason: r.weighted([['product_unsatisfactory', 40], ['discount', 30], ['order_change', 20], ['duplicate', 10]]),
        version: 1,
        createdAt: new Date(ms),
        updatedAt: new Date(ms),
        applications: take > 0 ? [{ id: this.ids.make('cna', ms), invoiceId: invoice.id, amount: take, appliedAt: new Date(ms) }] : [],
      };
      creditNotes.push(note);
      post(ms, 'credit_note', 'credit_note', note.id, 0, amount, { reference: number, description: `Credit note ${number}` });
      if (take > 0) {
        invoice.amountCredited += take;
        settle(invoice, ms);
      } else if (r.chance(0.4)) {
        // The credit is paid back: a refund of all of it.
        const refundMs = this.later(ms, 1, 20);
        if (refundMs !== null) {
          refund(refundMs, amount, { creditNoteId: note.id });
          Object.assign(note, { amountRefunded: amount, status: 'applied', version: 2, updatedAt: new Date(refundMs) });
        }
      }
    }

    for (const payment of payments) {
      const left = payment.amount - payment.amountApplied - payment.amountRefunded;
      if (left <= 0 || !r.chance(0.2)) continue;
      const ms = this.later(payment.updatedAt.getTime(), 1, 30);
      if (ms === null) continue;
      const amount = r.chance(0.7) ? left : Math.max(1, Math.floor(left / 2));
      refund(ms, amount, { paymentId: payment.id });
      payment.amountRefunded += amount;
      const used = payment.amountApplied + payment.amountRefunded;
      payment.status = used === payment.amount ? 'applied' : 'partially_applied';
      if (payment.amountApplied > 0 && used === payment.amount) payment.matchStatus = 'matched';
      payment.version++;
      payment.updatedAt = new Date(ms);
    }

    for (const invoice of invoices) {
      if (!isOpenStatus(invoice.status) || due(invoice) <= 0) continue;
      const small = invoice.amountPaid > 0 && due(invoice) <= Math.max(2_500, Math.floor(invoice.total / 50));
      const old = this.asOfDay - dayNumber(invoice.dueDate) > 90;
      if (!(small && r.chance(0.6)) && !(old && r.chance(0.08))) continue;
      const ms = this.later(invoice.updatedAt.getTime(), 1, 30);
      if (ms === null) continue;
      const amount = small ? due(invoice) : Math.max(1, Math.floor((due(invoice) * r.int(10, 50)) / 100));
      const reason = small ? 'small_balance' : 'bad_debt';
      writeOffs.push({ id: this.ids.make('wo', ms), invoiceId: invoice.id, amount, reason, createdAt: new Date(ms) });
      invoice.amountWrittenOff += amount;
      settle(invoice, ms);
      post(ms, 'write_off', 'invoice', invoice.id, 0, amount, { reference: invoice.number, description: `Invoice ${invoice.number} written off (${reason.replace('_', ' ')})` });
    }
    return { creditNotes, writeOffs, refunds };
  }

  /** A business-hours moment `min` to `max` days after `ms`, or null when that is after the seed's day. */
  private later(ms: number, min: number, max: number): number | null {
    const day = Math.floor(ms / DAY) + this.random.int(min, max);
    if (Math.floor(ms / DAY) + min > this.asOfDay) return null;
    const at = this.at(Math.min(day, this.asOfDay));
    return at > ms ? at : null;
  }

  /**
   * Turns the money that arrives into exactly `target` payments: consecutive receipts are
   * grouped into one remittance (several invoices per payment), a few payments leave some
   * cash unapplied, and when there are fewer receipts than payments the rest are payments
   * on account (customer credit).
   */
  private payments(customer: CustomerRow, intents: { invoice: InvoiceRow; amount: number; day: number }[], target: number, invoices: InvoiceRow[]): PaymentRow[] {
    const r = this.random;
    intents.sort((a, b) => a.day - b.day);
    const onAccount = target === 0 ? 0 : Math.max(intents.length >= target ? Math.round(target * 0.02) : target - intents.length, 0);
    const grouped = Math.min(target - onAccount, intents.length);
    // Cut the receipts (in date order) into `grouped` consecutive groups.
    const cuts = new Set<number>();
    while (cuts.size < grouped - 1) cuts.add(r.int(1, intents.length - 1));
    const bounds = [0, ...[...cuts].sort((a, b) => a - b), intents.length];
    const payments: PaymentRow[] = [];
    if (grouped === 0 && intents.length > 0) {
      // No payment left to carry them: these invoices simply stay unpaid.
      intents.length = 0;
    }
    for (let g = 0; g + 1 < bounds.length && grouped > 0; g++) {
      const group = intents.slice(bounds[g], bounds[g + 1]);
      // Money arrives on the last receipt's day; each invoice can appear once per payment.
      const day = Math.min(this.asOfDay, group[group.length - 1].day);
      // Recorded during that day's business hours, and never before the invoices it pays.
      const latest = Math.max(...group.map((it) => it.invoice.createdAt.getTime()));
      const createdMs = Math.min(this.nowMs - 1000, Math.max(this.at(day), latest + r.int(60_000, 3_600_000)));
      const byInvoice = new Map<InvoiceRow, number>();
      for (const it of group) byInvoice.set(it.invoice, (byInvoice.get(it.invoice) ?? 0) + it.amount);
      const applied = [...byInvoice.values()].reduce((a, b) => a + b, 0);
      const over = r.chance(0.02) ? r.int(100, 50_000) : 0;
      const manual = r.chance(0.12);
      const rule = manual ? 'manual' : byInvoice.size === 1 && r.chance(0.4) ? 'exact_amount' : r.weighted<'remittance' | 'reference'>([['remittance', 60], ['reference', 40]]);
      const paymentId = this.ids.make('pay', createdMs);
      const appliedMs = manual ? Math.min(this.nowMs, createdMs + r.int(1, 72) * 3_600_000) : createdMs;
      const numbers = [...byInvoice.keys()].map((i) => i.number);
      const payment: PaymentRow = {
        id: paymentId,
        customerId: customer.id,
        amount: applied + over,
        amountApplied: applied,
        amountRefunded: 0,
        currency: customer.currency,
        paymentDate: dateOf(day),
        method: r.weighted([['ach', 45], ['wire', 15], ['check', 25], ['card', 10], ['other', 5]]),
        reference: rule === 'reference' ? `Payment for ${numbers.join(', ')}` : r.chance(0.5) ? `${r.pick(['ACH', 'CHK', 'WIRE'])} ${r.int(100_000, 999_999)}` : null,
        remittance: rule === 'remittance' ? [...byInvoice].map(([inv, amount]) => ({ invoice_number: inv.number, amount })) : [],
        status: over > 0 ? 'partially_applied' : 'applied',
        autoMatch: 'strict',
        matchStatus: over > 0 ? 'partial' : 'matched',
        matchRule: rule,
        metadata: {},
        // Inserted as version 1; the match (automatic, in the same transaction, or by hand later) saves it once more.
        version: 2,
        createdAt: new Date(createdMs),
        updatedAt: new Date(appliedMs),
        applications: [],
      };
      for (const [invoice, amount] of byInvoice) {
        payment.applications.push({ id: this.ids.make('app', appliedMs), paymentId, invoiceId: invoice.id, invoiceNumber: invoice.number, amount, source: manual ? 'manual' : 'auto', appliedAt: new Date(appliedMs) });
        invoice.amountPaid += amount;
        invoice.status = invoice.amountPaid === invoice.total ? 'paid' : 'partially_paid';
        if (invoice.status === 'paid') {
          invoice.paidAt = new Date(appliedMs);
          invoice.paidOn = payment.paymentDate;
        }
        this.touch(invoice, appliedMs);
      }
      payments.push(payment);
    }
    for (let i = 0; i < onAccount; i++) {
      const day = this.asOfDay - r.int(0, 3 * 365 - 1);
      const createdMs = this.at(Math.max(day, Math.floor(customer.createdAt.getTime() / DAY) + 1));
      payments.push({
        id: this.ids.make('pay', createdMs),
        customerId: customer.id,
        amount: r.int(1_000, 500_000),
        amountApplied: 0,
        amountRefunded: 0,
        currency: customer.currency,
        paymentDate: dateOf(Math.floor(createdMs / DAY)),
        method: r.weighted([['ach', 50], ['wire', 20], ['check', 30]]),
        reference: `${r.pick(['ACH', 'CHK', 'WIRE'])} ${r.int(100_000, 999_999)}`,
        remittance: [],
        status: 'unapplied',
        autoMatch: 'strict',
        matchStatus: 'unmatched',
        matchRule: null,
        metadata: {},
        version: 1,
        createdAt: new Date(createdMs),
        updatedAt: new Date(createdMs),
        applications: [],
      });
    }
    void invoices;
    return payments;
  }

  /** A moment during business hours of `day`, never after the seed runs. */
  private at(day: number): number {
    return Math.min(this.nowMs - 1000, day * DAY + this.random.int(9, 17) * 3_600_000 + this.random.int(0, 3_599_999));
  }

  private touch(invoice: InvoiceRow, ms: number): void {
    invoice.version++;
    if (ms > invoice.updatedAt.getTime()) invoice.updatedAt = new Date(ms);
  }
}

/** Splits `total` in proportion to `weights` (largest remainders), summing exactly to total. */
export function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = weights.map((w) => (total * w) / sum);
  const counts = exact.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i]).sort((a, b) => b[0] - a[0]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) counts[order[k][1]]++;
  return counts;
}
