/**
 * Matching-quality ground truth for bank files (issue #15): a deterministic generator of one
 * "world" per format — customers (names, payer accounts), open invoices — and a bank file of
 * credit entries written as that format's banks write them, each entry with what the contract
 * says must happen to it.
 *
 * Kinds of entries:
 * - matchable (the contract's rules decide them without a person): structured remittance
 *   (camt `Strd`; a bare invoice number in the other formats' remittance field), invoice numbers
 *   in free text in the ways payers write them, a payer account or a payer name (after §14's
 *   normalisation) identifying the customer whose one invoice fits the amount (or two invoices
 *   together), short pays within the tenant's tolerance (§13), partial payments and
 *   over-payments of named invoices;
 * - not matchable (they must end `needs_review` or `unmatched`, nothing applied): unidentifiable
 *   payers with no invoice number, a reference naming no invoice, an amount two invoices fit,
 *   a payer name two customers share, a reference that fits invoices of two customers, an
 *   identified payer whose invoices fit nothing, a shortfall beyond the tolerance, a payer name
 *   the bank spells differently beyond §14's normalisation (`BV` for a customer recorded `B.V.`).
 *
 * Every matchable entry has customers and invoices of its own, so the file's order cannot change
 * the answer; the generator checks each pool answer is unique by brute force.
 */

export type BankFormat = 'camt.053' | 'camt.054' | 'bai2' | 'mt940' | 'csv';
export const BANK_FORMATS: BankFormat[] = ['camt.053', 'camt.054', 'bai2', 'mt940', 'csv'];

/** The tenant's tolerance in every world: 5.00, or 1 % of what is due, whichever is less. */
export const GROUND_TRUTH_TOLERANCE = { amount: 500, percent: 1 };
const tolerance = (due: number) => Math.min(GROUND_TRUTH_TOLERANCE.amount, Math.floor((due * GROUND_TRUTH_TOLERANCE.percent) / 100));

export const MATCHABLE_KINDS = [
  'structured',
  'structured_partial',
  'free_text',
  'payer_account',
  'payer_name',
  'payer_name_combination',
  'short_pay',
  'over_payment',
] as const;
export const NOT_MATCHABLE_KINDS = [
  'unidentifiable',
  'unknown_reference',
  'ambiguous_amount',
  'ambiguous_payer',
  'ambiguous_reference',
  'payer_no_fit',
  'beyond_tolerance',
  'name_outside_contract',
] as const;
export type EntryKind = (typeof MATCHABLE_KINDS)[number] | (typeof NOT_MATCHABLE_KINDS)[number];

export interface GtCustomer {
  key: string;
  name: string;
  payer_accounts: string[];
}

export interface GtInvoice {
  number: string;
  customer: string;
  amount: number;
  due_date: string;
}

export interface GtEntry {
  /** the bank_entry_id the payment will carry */
  bank_entry_id: string;
  kind: EntryKind;
  matchable: boolean;
  amount: number;
  /** matchable: exactly these applications (invoice number → amount) and short-pay write-offs; otherwise none */
  expect:
    | { status: 'matched' | 'partial'; applications: Record<string, number>; write_offs: Record<string, number> }
    | { status: 'needs_review' | 'unmatched' };
}

export interface GroundTruthCase {
  format: BankFormat;
  currency: string;
  customers: GtCustomer[];
  invoices: GtInvoice[];
  /** credit entries only, in file order */
  entries: GtEntry[];
  /** debits, reversals and lockbox deposit totals in the file (entries_skipped) */
  skipped: number;
  file: string;
}

/** An entry before it is written in a format. */
interface Credit {
  id: string;
  amount: number;
  date: string;
  payer: { name: string | null; account: string | null };
  /** invoice numbers the payer structured (camt Strd), with the amount remitted for each when given */
  structured: { number: string; amount: number | null }[];
  /** the unstructured remittance text */
  text: string | null;
  truth: GtEntry;
}

// ---- deterministic randomness -----------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

// ---- names ------------------------------------------------------------------------------------

const FIRST = [
  'Nordwind', 'Alpen', 'Harbor', 'Greenleaf', 'Atlas', 'Pine Valley', 'Blue River', 'Sunrise', 'Ironwood', 'Silverline', 'Kestrel', 'Maple',
  'Orchid', 'Granite', 'Cobalt', 'Falcon', 'Meridian', 'Summit', 'Willow', 'Zenith', 'Müller', 'Café Lumière', 'Škoda Parts', 'Østergaard',
  'Dupré', 'Lindqvist', "O'Brien", 'Van der Berg', 'Château', 'Fjord', 'Redwood', 'Quartz', 'Beacon', 'Cedar', 'Harvest', 'Polaris', 'Sierra',
  'Tundra', 'Vega', 'Aurora', 'Bristol', 'Calder', 'Delta', 'Emerald', 'Foxglove', 'Glacier', 'Hudson', 'Juniper', 'Kingsley', 'Larkspur',
];
const SECOND = ['Trading', 'Logistics', 'Foods', 'Mining', 'Health', 'Bau', 'Handel', 'Textiles', 'Systems', 'Freight', 'Energy', 'Design', 'Marine', 'Labs', 'Supplies'];
/** [as the customer is recorded, as the bank writes it] — the same after §14's normalisation */
// (Dotted abbreviations such as "B.V." are not among them: §14 makes every dot a space, so "B.V."
// is the words "b v", no legal suffix — a bank writing "BV" for a customer recorded as "B.V." is
// a different name under the contract, and the generator does not claim otherwise.)
const SUFFIXES: [string, string][] = [
  ['GmbH', 'GMBH'],
  ['Ltd', 'LIMITED'],
  ['Ltd.', 'LTD'],
  ['Inc.', 'INC'],
  ['Inc', 'INCORPORATED'],
  ['LLC', 'LLC'],
  ['AG', 'AG'],
  ['BV', 'BV'],
  ['SA', 'SA'],
  ['Corp.', 'CORPORATION'],
  ['& Co', '& CO.'],
  ['Co., Ltd.', 'CO LTD'],
  ['Oy', 'OY'],
  ['AB', 'AB'],
  ['PLC', 'PLC'],
];
const STRANGERS = [
  'J. Smith', 'Maria Rossi', 'Private Customer', 'Unknown Remitter', 'A. Nakamura', 'P. Jansen', 'Tax Office Refund', 'Landlord Services',
  'K. Schneider', 'Online Marketplace Payout', 'Card Acquirer Settlement', 'R. Dubois',
];
const NOISE = [
  'PAYMENT', 'Zahlung', 'Thank you', 'Transfer', 'Monthly settlement', 'See remittance advice sent by email', 'Betaling', 'Virement',
  'Settlement October', 'Payment as agreed', 'Balance of account',
];
const UNIDENTIFIABLE_TEXT = ['Refund deposit', 'Rent October', 'Transfer between accounts', 'Salary correction', 'Payout', 'Dividend', 'Interest', 'Misc credit'];

function stripAccents(s: string): string {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

// ---- the world ----------------------------------------------------------------------------------

const FORMAT_CURRENCY: Record<BankFormat, string> = { 'camt.053': 'eur', 'camt.054': 'gbp', bai2: 'usd', mt940: 'eur', csv: 'usd' };
const FORMAT_SEED: Record<BankFormat, number> = { 'camt.053': 53, 'camt.054': 54, bai2: 2, mt940: 940, csv: 7 };
const PLAN: [EntryKind, number][] = [
  ['structured', 14],
  ['structured_partial', 3],
  ['free_text', 14],
  ['payer_account', 6],
  ['payer_name', 4],
  ['payer_name_combination', 2],
  ['short_pay', 5],
  ['over_payment', 2],
  ['unidentifiable', 5],
  ['unknown_reference', 1],
  ['ambiguous_amount', 2],
  ['ambiguous_payer', 2],
  ['ambiguous_reference', 1],
  ['payer_no_fit', 1],
  ['beyond_tolerance', 1],
];

/** Kinds whose customer only the payer can identify (or whose ambiguity is the payer's). */
const PAYER_NAMED = new Set<EntryKind>(['payer_account', 'payer_name', 'payer_name_combination', 'ambiguous_amount', 'ambiguous_payer', 'payer_no_fit', 'beyond_tolerance']);

export function generateGroundTruth(format: BankFormat, seed = FORMAT_SEED[format]): GroundTruthCase {
  // `let`: the entries added after the main plan draw from a generator of their own, so adding
  // them left every earlier entry (and the excerpts docs/cash-application.md quotes) as it was.
  let rng = new Rng(seed);
  const mainRng = rng;
  const currency = FORMAT_CURRENCY[format];
  const customers: GtCustomer[] = [];
  const invoices: GtInvoice[] = [];
  const credits: Credit[] = [];
  const usedNames = new Set<string>();
  const usedNumbers = new Set<string>();
  const hasAccounts = format !== 'bai2'; // BAI2 detail carries no payer account
  let entrySeq = 0;

  const normalised = (name: string) =>
    stripAccents(name)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  /** A new customer with a unique name: [recorded name, the bank's spelling]. */
  const newCustomer = (withAccount: boolean, suffixes: [string, string] | null = null): { customer: GtCustomer; bankName: string } => {
    for (;;) {
      const first = rng.pick(FIRST);
      const second = rng.pick(SECOND);
      const [suffix, bankSuffix] = suffixes ?? rng.pick(SUFFIXES);
      const base = `${first} ${second}`;
      const key = normalised(base);
      if (usedNames.has(key)) continue;
      usedNames.add(key);
      const customer: GtCustomer = {
        key: `c${customers.length + 1}`,
        name: `${base} ${suffix}`,
        payer_accounts: withAccount ? [iban()] : [],
      };
      customers.push(customer);
      return { customer, bankName: stripAccents(`${base} ${bankSuffix}`).toUpperCase().slice(0, 70) };
    }
  };
  const iban = () => {
    const country = rng.pick(['DE', 'NL', 'FR', 'BE', 'AT', 'CH', 'GB']);
    return country === 'GB' ? `GB${rng.digits(2)}NWBK${rng.digits(14)}` : `${country}${rng.digits(2)}${rng.digits(18)}`;
  };
  const invoiceNumber = () => {
    for (;;) {
      const n = `INV-${rng.int(100_000, 999_999)}`;
      if (!usedNumbers.has(n)) {
        usedNumbers.add(n);
        return n;
      }
    }
  };
  const dueDate = () => `2026-${rng.pick(['09', '10', '11'])}-${String(rng.int(1, 28)).padStart(2, '0')}`;
  const newInvoice = (customer: GtCustomer, amount: number, number = invoiceNumber()): GtInvoice => {
    const invoice = { number, customer: customer.key, amount, due_date: dueDate() };
    invoices.push(invoice);
    return invoice;
  };
  const amount = () => rng.int(5_000, 2_500_000);
  /** Distinct amounts none of which equals `avoid` and no two of which sum to it, nor near it. */
  const distractors = (count: number, avoid: number[]): number[] => {
    const out: number[] = [];
    while (out.length < count) {
      const a = amount();
      const all = [...out, a];
      const clashes = avoid.some((v) => all.some((x) => Math.abs(x - v) <= Math.max(tolerance(x), tolerance(v)) || all.some((y) => y !== x && x + y === v)));
      if (!clashes && !out.includes(a)) out.push(a);
    }
    return out;
  };
  const date = () => `2026-11-${String(rng.int(2, 6)).padStart(2, '0')}`;
  const strangerName = () => {
    for (;;) {
      const name = rng.pick(STRANGERS);
      if (!usedNames.has(normalised(name))) return name;
    }
  };
  /** `payerNamed`: the entry is identified by its payer, which BAI2 labels only in ACH and wire text (not lockbox items). */
  const id = (payerNamed: boolean) => {
    entrySeq++;
    switch (format) {
      case 'camt.053':
      case 'camt.054':
        return `${format === 'camt.053' ? 'STM' : 'NTF'}-20261105-${String(entrySeq).padStart(5, '0')}-${rng.digits(4)}`;
      case 'bai2':
        return `${rng.pick(payerNamed ? ['ACH', 'FW'] : ['ACH', 'FW', 'LBX', 'LBX'])}${rng.digits(8)}`;
      case 'mt940':
        return `ABN${rng.digits(7)}`;
      case 'csv':
        return `TX-${String(entrySeq).padStart(6, '0')}`;
    }
  };
  /** Free text naming the invoice numbers as payers write them. */
  const freeText = (numbers: string[]): string => {
    const digits = numbers.map((n) => n.slice(4));
    const forms = [
      () => `Payment ${numbers.join(' and ')} thank you`,
      () => `Betaling factuur ${numbers.join(' en ')} zie specificatie`,
      () => `INV ${digits.join(', ')}`,
      () => `${numbers.map((n) => n.replace('-', '')).join(' ')} / Order 4471`,
      () => `Invoice No. ${digits.join(' & ')}`,
      () => `Rechnung ${digits.join(', ')} vom 12.10.2026 Kd-Nr 88412`,
      () => `#${digits.join(' #')} balance`,
      () => `inv ${digits.join(' and ')} less nothing`,
      () => `Facture ${numbers.join(' ')} reglement`,
      () => `RE: invoice ${digits.join(', ')} PO 55120`,
    ];
    return rng.pick(forms)();
  };
  const payerFor = (customer: GtCustomer, bankName: string, show: boolean) => ({
    name: show ? bankName : null,
    account: show && hasAccounts ? (customer.payer_accounts[0] ?? null) : null,
  });
  const add = (kind: EntryKind, c: Omit<Credit, 'id' | 'date' | 'truth'>, expect: GtEntry['expect']) => {
    const bankEntryId = id(c.text === null || !/\d{4}/.test(c.text) ? true : PAYER_NAMED.has(kind));
    credits.push({
      ...c,
      id: bankEntryId,
      date: date(),
      truth: { bank_entry_id: bankEntryId, kind, matchable: (MATCHABLE_KINDS as readonly string[]).includes(kind), amount: c.amount, expect },
    });
  };
  const applied = (applications: Record<string, number>, writeOffs: Record<string, number> = {}, status: 'matched' | 'partial' = 'matched') => ({
    status,
    applications,
    write_offs: writeOffs,
  });

  // Two customers one payer name fits (§14: identifies none).
  const twinBase = `${rng.pick(['Nordic', 'Baltic', 'Pacific'])} Supplies`;
  usedNames.add(normalised(twinBase));
  const twins = [
    { key: `c${customers.length + 1}`, name: `${twinBase} AB`, payer_accounts: [] },
    { key: `c${customers.length + 2}`, name: `${twinBase.toUpperCase()} LIMITED`, payer_accounts: [] },
  ];
  customers.push(...twins);
  for (const twin of twins) newInvoice(twin, amount());
  // Two invoices of two customers one reference fits (A-2077 and B-2077).
  const letters = [`A-${rng.int(2000, 2999)}`];
  letters.push(`B-${letters[0].slice(2)}`);
  for (const number of letters) newInvoice(newCustomer(false).customer, amount(), number);

  const kinds = rng.shuffle(PLAN.flatMap(([kind, n]) => Array.from({ length: n }, () => kind)));
  for (const kind of kinds) {
    switch (kind) {
      case 'structured': {
        const { customer, bankName } = newCustomer(rng.chance(0.5));
        const count = rng.chance(0.25) ? 2 : 1;
        const targets = Array.from({ length: count }, () => newInvoice(customer, amount()));
        const total = targets.reduce((s, i) => s + i.amount, 0);
        add(
          kind,
          {
            amount: total,
            payer: rng.chance(0.6) ? payerFor(customer, bankName, true) : { name: strangerName(), account: null },
            structured: targets.map((i) => ({ number: i.number, amount: count > 1 || rng.chance(0.5) ? i.amount : null })),
            text: format.startsWith('camt') ? null : targets.map((i) => i.number).join(' '),
          },
          applied(Object.fromEntries(targets.map((i) => [i.number, i.amount]))),
        );
        break;
      }
      case 'structured_partial': {
        const { customer, bankName } = newCustomer(false);
        const target = newInvoice(customer, amount());
        const paid = Math.floor(target.amount * rng.int(30, 80)) / 100;
        const part = Math.floor(paid);
        add(
          kind,
          {
            amount: part,
            payer: payerFor(customer, bankName, true),
            structured: [{ number: target.number, amount: part }],
            text: format.startsWith('camt') ? null : `${target.number} part payment`,
          },
          applied({ [target.number]: part }),
        );
        break;
      }
      case 'free_text': {
        const { customer, bankName } = newCustomer(false);
        const targets = Array.from({ length: rng.chance(0.3) ? 2 : 1 }, () => newInvoice(customer, amount()));
        add(
          kind,
          {
            amount: targets.reduce((s, i) => s + i.amount, 0),
            payer: rng.chance(0.7) ? payerFor(customer, bankName, true) : { name: strangerName(), account: null },
            structured: [],
            text: freeText(targets.map((i) => i.number)),
          },
          applied(Object.fromEntries(targets.map((i) => [i.number, i.amount]))),
        );
        break;
      }
      case 'payer_account':
      case 'payer_name': {
        const byAccount = kind === 'payer_account' && hasAccounts;
        const { customer, bankName } = newCustomer(byAccount);
        const target = newInvoice(customer, amount());
        for (const a of distractors(rng.int(1, 3), [target.amount])) newInvoice(customer, a);
        add(
          kind,
          {
            amount: target.amount,
            payer: byAccount ? { name: rng.chance(0.5) ? bankName : null, account: customer.payer_accounts[0] } : { name: bankName, account: null },
            structured: [],
            text: rng.chance(0.6) ? rng.pick(NOISE) : null,
          },
          applied({ [target.number]: target.amount }),
        );
        break;
      }
      case 'payer_name_combination': {
        const { customer, bankName } = newCustomer(false);
        const [a, b] = [newInvoice(customer, amount()), newInvoice(customer, amount())];
        const total = a.amount + b.amount;
        for (const d of distractors(1, [total, total - a.amount, total - b.amount])) newInvoice(customer, d);
        add(kind, { amount: total, payer: { name: bankName, account: null }, structured: [], text: rng.pick(NOISE) }, applied({ [a.number]: a.amount, [b.number]: b.amount }));
        break;
      }
      case 'short_pay': {
        const { customer, bankName } = newCustomer(hasAccounts);
        const target = newInvoice(customer, rng.int(20_000, 2_500_000));
        const short = rng.int(1, tolerance(target.amount));
        const paid = target.amount - short;
        const how = rng.pick(['structured', 'text', 'payer'] as const);
        if (how === 'payer') for (const d of distractors(1, [paid])) newInvoice(customer, d);
        add(
          kind,
          {
            amount: paid,
            payer: how === 'payer' ? payerFor(customer, bankName, true) : { name: bankName, account: null },
            structured: how === 'structured' && format.startsWith('camt') ? [{ number: target.number, amount: null }] : [],
            text: how === 'payer' ? 'Payment less bank charges' : how === 'structured' && format.startsWith('camt') ? null : freeText([target.number]),
          },
          applied({ [target.number]: paid }, { [target.number]: short }),
        );
        break;
      }
      case 'over_payment': {
        const { customer, bankName } = newCustomer(false);
        const target = newInvoice(customer, amount());
        const extra = rng.int(100, 50_000);
        add(
          kind,
          { amount: target.amount + extra, payer: payerFor(customer, bankName, true), structured: [], text: freeText([target.number]) },
          applied({ [target.number]: target.amount }, {}, 'partial'),
        );
        break;
      }
      case 'unidentifiable':
        add(kind, { amount: amount(), payer: { name: rng.chance(0.7) ? strangerName() : null, account: hasAccounts && rng.chance(0.5) ? iban() : null }, structured: [], text: rng.pick(UNIDENTIFIABLE_TEXT) }, { status: 'unmatched' });
        break;
      case 'unknown_reference':
        add(kind, { amount: amount(), payer: { name: strangerName(), account: null }, structured: [], text: `Invoice INV-${rng.int(1_000_000, 9_999_999)}` }, { status: 'unmatched' });
        break;
      case 'ambiguous_amount': {
        const { customer, bankName } = newCustomer(hasAccounts);
        const same = amount();
        newInvoice(customer, same);
        newInvoice(customer, same);
        add(kind, { amount: same, payer: payerFor(customer, bankName, true), structured: [], text: rng.pick(NOISE) }, { status: 'needs_review' });
        break;
      }
      case 'ambiguous_payer':
        add(kind, { amount: amount(), payer: { name: twinBase.toUpperCase(), account: null }, structured: [], text: rng.pick(NOISE) }, { status: 'needs_review' });
        break;
      case 'ambiguous_reference':
        add(kind, { amount: amount(), payer: { name: strangerName(), account: null }, structured: [], text: `Invoice ${letters[0].slice(2)}` }, { status: 'needs_review' });
        break;
      case 'payer_no_fit': {
        const { customer, bankName } = newCustomer(hasAccounts);
        const [a, b] = distractors(2, []);
        newInvoice(customer, a);
        newInvoice(customer, b);
        const paid = distractors(1, [a, b, a + b])[0];
        add(kind, { amount: paid, payer: payerFor(customer, bankName, true), structured: [], text: rng.pick(NOISE) }, { status: 'unmatched' });
        break;
      }
      case 'beyond_tolerance': {
        const { customer, bankName } = newCustomer(hasAccounts);
        const target = newInvoice(customer, rng.int(100_000, 2_500_000));
        add(kind, { amount: target.amount - tolerance(target.amount) - rng.int(1, 5_000), payer: payerFor(customer, bankName, true), structured: [], text: rng.pick(NOISE) }, { status: 'unmatched' });
        break;
      }
    }
  }

  // Payer names a bank writes differently from the customer's name beyond §14's normalisation
  // (dotted legal forms: "B.V." is the words "b v", the bank's "BV" a suffix), with an invoice due
  // for exactly the amount: tempting, but not the customer under the contract — unmatched.
  rng = new Rng(seed + 1_000);
  for (const [recorded, written] of [
    ['B.V.', 'BV'],
    ['S.A.', 'SA'],
  ] as [string, string][]) {
    const { customer, bankName } = newCustomer(false, [recorded, written]);
    const target = newInvoice(customer, amount());
    add('name_outside_contract', { amount: target.amount, payer: { name: bankName, account: null }, structured: [], text: rng.pick(NOISE) }, { status: 'unmatched' });
  }
  rng = mainRng;

  const written = write(format, currency, credits, rng);
  return { format, currency, customers, invoices, entries: credits.map((c) => c.truth), skipped: written.skipped, file: written.file };
}

// ---- writers: as the banks write them ---------------------------------------------------------

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;').replace(/"/g, '&quot;');
const decimal = (minor: number, separator = '.') => `${Math.floor(minor / 100)}${separator}${String(minor % 100).padStart(2, '0')}`;

function write(format: BankFormat, currency: string, credits: Credit[], rng: Rng): { file: string; skipped: number } {
  switch (format) {
    case 'camt.053':
    case 'camt.054':
      return camt(format, currency.toUpperCase(), credits, rng);
    case 'bai2':
      return bai2(credits, rng);
    case 'mt940':
      return mt940(credits, rng);
    case 'csv':
      return csv(currency.toUpperCase(), credits, rng);
  }
}

/** camt.053.001.02 (statement) / camt.054.001.04 (notification): one Ntry per credit, a few debits among them. */
function camt(format: 'camt.053' | 'camt.054', ccy: string, credits: Credit[], rng: Rng): { file: string; skipped: number } {
  const is053 = format === 'camt.053';
  const entries: string[] = [];
  let skipped = 0;
  credits.forEach((c, i) => {
    if (i % 20 === 7) {
      skipped++;
      entries.push(`      <Ntry>
        <Amt Ccy="${ccy}">${decimal(rng.int(1_000, 90_000))}</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${c.date}</Dt></BookgDt>
        <ValDt><Dt>${c.date}</Dt></ValDt>
        <AcctSvcrRef>DBT-${rng.digits(10)}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Office Supplies Wholesale</Nm></Cdtr></RltdPties><RmtInf><Ustrd>Order 7781</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>`);
    }
    const party = [
      c.payer.name ? `<Dbtr><Nm>${xml(c.payer.name)}</Nm></Dbtr>` : '',
      c.payer.account ? `<DbtrAcct><Id><IBAN>${c.payer.account}</IBAN></Id></DbtrAcct>` : '',
    ].join('');
    const strd = c.structured
      .map(
        (s) =>
          `<Strd><RfrdDocInf><Tp><CdOrPrtry><Cd>CINV</Cd></CdOrPrtry></Tp><Nb>${xml(s.number)}</Nb></RfrdDocInf>${
            s.amount !== null ? `<RfrdDocAmt><RmtdAmt Ccy="${ccy}">${decimal(s.amount)}</RmtdAmt></RfrdDocAmt>` : ''
          }</Strd>`,
      )
      .join('');
    // Banks cut Ustrd at 140 characters per occurrence.
    const ustrd = c.text ? `<Ustrd>${xml(c.text.slice(0, 140))}</Ustrd>` : '';
    entries.push(`      <Ntry>
        <NtryRef>${String(i + 1).padStart(6, '0')}</NtryRef>
        <Amt Ccy="${ccy}">${decimal(c.amount)}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${c.date}</Dt></BookgDt>
        <ValDt><Dt>${c.date}</Dt></ValDt>
        <AcctSvcrRef>${c.id}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>${rng.chance(0.5) ? 'NOTPROVIDED' : `E2E-${rng.digits(12)}`}</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="${ccy}">${decimal(c.amount)}</Amt></TxAmt></AmtDtls>
            ${party ? `<RltdPties>${party}</RltdPties>` : ''}
            ${strd || ustrd ? `<RmtInf>${ustrd}${strd}</RmtInf>` : ''}
          </TxDtls>
        </NtryDtls>
      </Ntry>`);
  });
  const [root, stmt, ns] = is053 ? ['BkToCstmrStmt', 'Stmt', 'camt.053.001.02'] : ['BkToCstmrDbtCdtNtfctn', 'Ntfctn', 'camt.054.001.04'];
  const file = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${ns}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <${root}>
    <GrpHdr>
      <MsgId>${is053 ? 'STM' : 'NTF'}20261106-GT</MsgId>
      <CreDtTm>2026-11-06T05:30:00</CreDtTm>
    </GrpHdr>
    <${stmt}>
      <Id>${is053 ? 'STM' : 'NTF'}20261106-GT-1</Id>
      <CreDtTm>2026-11-06T05:30:00</CreDtTm>
      <Acct>
        <Id><IBAN>${is053 ? 'DE89370400440532013000' : 'GB33BUKB20201555555555'}</IBAN></Id>
        <Ccy>${ccy}</Ccy>
      </Acct>
${entries.join('\n')}
    </${stmt}>
  </${root}>
</Document>
`;
  return { file, skipped };
}

/** BAI2: lockbox deposits (115 total + 116 items), ACH credits (142, ORIG CO NAME) and wires (195, B/O) — 88 continuations past 80 columns. */
function bai2(credits: Credit[], rng: Rng): { file: string; skipped: number } {
  const lines: string[] = ['01,122099999,123456789,261106,0530,1,80,,2/'];
  let skipped = 0;
  // BAI2 dates entries by the group's as-of date: one group per booking date.
  const byDate = new Map<string, Credit[]>();
  for (const c of credits) byDate.set(c.date, [...(byDate.get(c.date) ?? []), c]);
  const push16 = (head: string, text: string) => {
    // A record longer than 80 characters continues in 88 records.
    const full = `${head}${text}`;
    const parts: string[] = [];
    let rest = full;
    while (rest.length > 80) {
      const cut = rest.lastIndexOf(' ', 80) > 20 ? rest.lastIndexOf(' ', 80) : 80;
      parts.push(rest.slice(0, cut));
      rest = rest.slice(cut + 1);
    }
    parts.push(rest);
    lines.push(parts[0], ...parts.slice(1).map((p) => `88,${p}`));
  };
  let groups = 0;
  for (const [day, group] of [...byDate.entries()].sort()) {
    groups++;
    lines.push(`02,031001234,122099999,1,${day.slice(2).replace(/-/g, '')},2359,USD,2/`);
    lines.push(`03,4589761203,USD,010,${rng.int(1_000_000, 9_000_000)},,,040,${rng.int(1_000_000, 9_000_000)},,/`);
    const lockbox = group.filter((c) => c.id.startsWith('LBX'));
    const others = group.filter((c) => !c.id.startsWith('LBX'));
    if (lockbox.length > 0) {
      skipped++;
      const total = lockbox.reduce((s, c) => s + c.amount, 0);
      lines.push(`16,115,${total},0,LBX-${day.replace(/-/g, '')}-01,7788,LOCKBOX 7788 DEPOSIT ${lockbox.length} ITEMS/`);
      for (const c of lockbox) {
        const remitter = c.payer.name ? `REMITTER: ${c.payer.name}` : 'REMITTER UNKNOWN';
        push16(`16,116,${c.amount},0,${c.id},CHK ${rng.int(1000, 99999)},`, `${remitter} ${c.text ?? 'NO REMITTANCE DOCUMENT'}`.trim());
      }
    }
    for (const c of others) {
      if (c.id.startsWith('ACH')) {
        const name = c.payer.name ?? 'ACH SETTLEMENT';
        push16(
          `16,142,${c.amount},0,${c.id},,`,
          `ORIG CO NAME:${name} ORIG ID:${rng.digits(10)} DESC DATE:${c.date.slice(2).replace(/-/g, '')} ENTRY DESCR:PAYMENTS SEC:CCD TRACE#:${rng.digits(15)} IND ID:${c.text ?? 'NONE'}`,
        );
      } else {
        push16(`16,195,${c.amount},Z,${c.id},,`, `${c.payer.name ? `B/O: ${c.payer.name} ` : ''}OBI: ${c.text ?? 'NONE'}/`);
      }
    }
    skipped++;
    lines.push(`16,475,${rng.int(1_000, 90_000)},0,CHK-${rng.digits(4)},${rng.digits(4)},CHECK PAID/`);
    lines.push(`49,${rng.int(1_000_000, 9_000_000)},${group.length + 3}/`);
    lines.push(`98,${rng.int(1_000_000, 9_000_000)},1,${group.length + 5}/`);
  }
  lines.push(`99,${rng.int(1_000_000, 9_000_000)},${groups},${lines.length + 1}/`);
  return { file: `${lines.join('\n')}\n`, skipped };
}

/** MT940 in a SWIFT envelope: :61: per entry, :86: structured the Dutch way (/NAME/ /IBAN/ /REMI/), wrapped at 65 columns. */
function mt940(credits: Credit[], rng: Rng): { file: string; skipped: number } {
  const lines: string[] = ['{1:F01ABNANL2AXXXX0000000000}{2:I940ABNANL2AXXXXN}{4:', ':20:ABN AMRO BANK NV', ':25:NL91ABNA0417164300', ':28C:00311/1', ':60F:C261101EUR1000000,00'];
  let skipped = 0;
  const yymmdd = (d: string) => d.slice(2).replace(/-/g, '');
  // At most 65 characters of content per line after the tag, broken at a space where there is one
  // (a full line continues mid-word). SWIFT forbids a line starting with '-' or ':' (end of
  // message, next field), so a break never leaves one there.
  const wrap = (tag: string, text: string) => {
    const out: string[] = [];
    let rest = text;
    while (rest.length > 65) {
      const space = rest.lastIndexOf(' ', 64); // a line broken at a space is shorter than 65: the reader puts the space back
      let cut = space > 0 ? space : 65;
      while (space <= 0 && /^[-:]/.test(rest.slice(cut))) cut--;
      out.push(rest.slice(0, cut));
      rest = rest.slice(space > 0 ? cut + 1 : cut);
    }
    out.push(rest);
    out[0] = `${tag}${out[0]}`;
    return out;
  };
  credits.forEach((c, i) => {
    if (i % 15 === 4) {
      skipped++;
      lines.push(`:61:${yymmdd(c.date)}${yymmdd(c.date).slice(2)}D${decimal(rng.int(1_000, 90_000), ',')}N035NONREF//ABN${rng.digits(7)}`);
      lines.push(...wrap(':86:', '/TRTP/SEPA INCASSO/IBAN/NL18ABNA0484869868/NAME/ENERGIE BV/REMI/Maandtermijn oktober/CSID/NL00ZZZ404840000000'));
    }
    lines.push(`:61:${yymmdd(c.date)}${yymmdd(c.date).slice(2)}C${decimal(c.amount, ',')}NTRFNONREF//${c.id}`);
    const details = [
      '/TRTP/SEPA OVERBOEKING',
      c.payer.account ? `/IBAN/${c.payer.account}/BIC/${rng.pick(['ABNANL2A', 'RABONL2U', 'INGBNL2A', 'DEUTDEFF'])}` : '',
      c.payer.name ? `/NAME/${c.payer.name}` : '',
      c.text ? `/REMI/USTD//${c.text}/` : '',
      `/EREF/${rng.chance(0.5) ? 'NOTPROVIDED' : `E2E-${rng.digits(8)}`}`,
    ].join('');
    lines.push(...wrap(':86:', details));
  });
  lines.push(':62F:C261106EUR1250000,00', '-}');
  return { file: `${lines.join('\r\n')}\r\n`, skipped };
}

/** The CSV of §14, as an online bank exports it: quoted where needed, a debit or two among the credits. */
function csv(ccy: string, credits: Credit[], rng: Rng): { file: string; skipped: number } {
  const quote = (s: string | null) => (s === null ? '' : /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id'];
  let skipped = 0;
  credits.forEach((c, i) => {
    if (i % 20 === 11) {
      skipped++;
      rows.push(`${c.date},-${decimal(rng.int(1_000, 90_000))},${ccy},Card settlement fee,,,FEE-${rng.digits(6)}`);
    }
    rows.push([c.date, decimal(c.amount), ccy, quote(c.text), quote(c.payer.name), quote(c.payer.account), c.id].join(','));
  });
  return { file: `${rows.join('\n')}\n`, skipped };
}
