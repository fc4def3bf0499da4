/**
 * Finds invoice numbers in free-text payment references the way people write them:
 * `INV-000123`, `inv 123`, `INV000123`, `#123`, `Invoice No. 123`, `INV 123, 124 & 125`,
 * several numbers in one reference, numbers amid other text.
 *
 * Parsing only proposes candidates; nothing is matched until a candidate is resolved against
 * the tenant's actual invoice numbers (`resolveReferenceCandidates`). A number that belongs to
 * no invoice of the tenant therefore never matches, and bare numbers (amounts, dates, check
 * numbers) are only candidates when they equal a whole invoice number exactly.
 */

/** One thing in the reference that may name an invoice. */
export interface ReferenceCandidate {
  /** the text as written, for suggestions and logs */
  readonly text: string;
  /** lowercase letters and digits only: compared with an invoice number's `exactKey` */
  readonly exactKey: string;
  /** digits without leading zeros when the candidate is a number after an invoice marker or a letter prefix */
  readonly digits: string | null;
  /**
   * letters glued to the digits (`abc` in `ABC-12`; `inv` for `INV000123` or `Invoice-7`): the
   * invoice number must carry that prefix. null after a spaced marker (`#123`, `invoice 123`): any prefix fits.
   */
  readonly prefix: string | null;
}

/** The keys an invoice number can be found by (mirrored by SQL expressions in the repository). */
export interface InvoiceNumberKeys {
  exactKey: string;
  /** only for numbers shaped `<letters><separators><digits>` (INV-000123, A1001, 000123) */
  numeric: { prefix: string; digits: string } | null;
}

/** Words that introduce invoice numbers (`invoice 123`, `inv. 123`, `facture 123`). */
const MARKER_WORDS = new Set(['inv', 'invs', 'invoice', 'invoices', 'bill', 'bills', 'factura', 'facture', 'rechnung']);
/** Written glued to digits (`INV000123`, `Invoice-123`) these stand for the usual `INV` prefix. */
const GENERIC_PREFIXES = new Set(['inv', 'invs', 'invoice', 'invoices']);
/** Words whose number is something else: a check, a purchase order, a bank reference. */
const FOREIGN_NUMBER_WORDS = new Set([
  'check', 'chk', 'ck', 'cheque', 'po', 'order', 'ord', 'ref', 'reference', 'trace', 'conf', 'confirmation',
  'wire', 'ach', 'txn', 'transaction', 'batch', 'account', 'acct', 'acc', 'customer', 'cust', 'id', 'routing', 'card', 'auth',
]);
const NUMBER_WORDS = new Set(['no', 'nr', 'nos', 'num', 'number']);

/** Tokens: words, numbers (an amount-like `1,250.00` stays one token), `#`, and list joiners. */
const TOKEN_RE = /([a-z]+)|(\d+(?:[.,]\d+)*)|(#)|(&|\+|\/|,|;)/gi;

interface Token {
  kind: 'word' | 'number' | 'hash' | 'joiner';
  text: string;
  lower: string;
  start: number;
  end: number;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    const kind = m[1] ? 'word' : m[2] ? 'number' : m[3] ? 'hash' : 'joiner';
    tokens.push({ kind, text: m[0], lower: m[0].toLowerCase(), start: m.index!, end: m.index! + m[0].length });
  }
  return tokens;
}

const stripZeros = (digits: string): string => digits.replace(/^0+(?=\d)/, '');
const alnumKey = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

export function invoiceNumberKeys(number: string): InvoiceNumberKeys {
  const exactKey = alnumKey(number);
  const m = /^([a-z]*)[^a-z0-9]*(\d+)$/i.exec(number.trim());
  return { exactKey, numeric: m ? { prefix: m[1].toLowerCase(), digits: stripZeros(m[2]) } : null };
}

export function parseInvoiceReferences(reference: string | null | undefined): ReferenceCandidate[] {
  if (!reference) return [];
  const text = reference.slice(0, 1000);
  const found = new Map<string, ReferenceCandidate>();
  const add = (c: ReferenceCandidate) => {
    const key = `${c.exactKey}|${c.digits}|${c.prefix}`;
    if (c.exactKey && !found.has(key)) found.set(key, c);
  };

  // 1. Whole tokens as written (`A1001`, `2024-0042`, `INV/2024/7`): exact matches of custom numbers.
  for (const raw of text.split(/[\s,;&+|()[\]{}"']+/)) {
    const token = raw.replace(/^[^a-z0-9]+|[^a-z0-9]+$/gi, '');
    if (token) add({ text: token, exactKey: alnumKey(token), digits: null, prefix: null });
  }

  // 2. Numbers introduced by a marker or glued to a letter prefix, and the lists that follow them.
  const tokens = tokenize(text);
  const between = (a: Token, b: Token) => text.slice(a.end, b.start);
  const glued = (a: Token, b: Token) => /^[\-.:_]*$/.test(between(a, b));
  const spaced = (a: Token, b: Token) => /^[\s\-.:_]*$/.test(between(a, b));
  // `500.00`, `1,250` are amounts; `2024` in `INV-2024-0042` is part of a longer number (matched whole, above).
  const isInvoiceNumber = (t: Token | undefined): t is Token =>
    t?.kind === 'number' && /^\d+$/.test(t.text) && !/^[\-.]\d/.test(text.slice(t.end, t.end + 2)) && !/\d[\-.]$/.test(text.slice(Math.max(0, t.start - 2), t.start));

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    let at = -1;
    let prefix: string | null = null;
    if (t.kind === 'word' && isInvoiceNumber(next) && glued(t, next)) {
      // `INV000123`, `INV-123`, `ABC-12`: the letters are the invoice number's prefix.
      if (!FOREIGN_NUMBER_WORDS.has(t.lower)) {
        at = i + 1;
        prefix = GENERIC_PREFIXES.has(t.lower) ? 'inv' : t.lower;
      }
    } else if (t.kind === 'word' && MARKER_WORDS.has(t.lower)) {
      // `inv 123`, `invoice: 123`, `Invoice No. 123`, `invoice # 123`: a generic marker fits any prefix.
      if (isInvoiceNumber(next) && spaced(t, next)) at = i + 1;
      else if (next && (next.kind === 'hash' || (next.kind === 'word' && NUMBER_WORDS.has(next.lower))) && isInvoiceNumber(tokens[i + 2]) && spaced(next, tokens[i + 2])) at = i + 2;
    } else if (t.kind === 'hash' && isInvoiceNumber(next) && spaced(t, next)) {
      // `#123`, unless it is `check #123` / `PO #123`.
      const before = tokens[i - 1];
      if (!(before?.kind === 'word' && FOREIGN_NUMBER_WORDS.has(before.lower) && spaced(before, t))) at = i + 1;
    }
    if (at < 0) continue;

    addNumber(tokens[at], prefix);
    // A list continues the marker: `INV 123, 124 & 125`, `#123/124`, `#123 #124`, `inv 7 and 8`.
    for (;;) {
      let k = at + 1;
      if (tokens[k]?.kind === 'joiner' || (tokens[k]?.kind === 'word' && tokens[k].lower === 'and')) k++;
      if (tokens[k]?.kind === 'hash') k++;
      if (k === at + 1 || !isInvoiceNumber(tokens[k])) break;
      addNumber(tokens[k], prefix);
      at = k;
    }
    i = at;
  }
  return [...found.values()];

  function addNumber(t: Token, prefix: string | null) {
    add({ text: prefix ? `${prefix}-${t.text}` : t.text, exactKey: `${prefix ?? ''}${t.text}`, digits: stripZeros(t.text), prefix });
  }
}

/** Does the candidate name this invoice number? */
export function candidateMatches(candidate: ReferenceCandidate, keys: InvoiceNumberKeys): 'exact' | 'numeric' | null {
  if (candidate.exactKey === keys.exactKey) return 'exact';
  if (candidate.digits === null || !keys.numeric || keys.numeric.digits !== candidate.digits) return null;
  const { prefix } = keys.numeric;
  // `#123` fits INV-000123; `INV-123` fits INV-000123 and a bare 000123, never CN-000123.
  if (candidate.prefix === null || candidate.prefix === prefix || (candidate.prefix === 'inv' && prefix === '')) return 'numeric';
  return null;
}

export interface NumberedInvoice {
  readonly id: string;
  readonly number: string;
}

export interface ReferenceResolution<T extends NumberedInvoice> {
  /** invoices named unambiguously, each once */
  invoices: T[];
  /** candidates that fit several invoices equally well: a person has to choose */
  ambiguous: { text: string; invoices: T[] }[];
}

/**
 * Resolves candidates against actual invoice numbers. An exact match beats a numeric one
 * (`#123` names `123` over `INV-000123` when both exist); several equally good matches
 * are ambiguous and are reported, never guessed.
 */
export function resolveReferenceCandidates<T extends NumberedInvoice>(candidates: ReferenceCandidate[], invoices: T[]): ReferenceResolution<T> {
  const keyed = invoices.map((invoice) => ({ invoice, keys: invoiceNumberKeys(invoice.number) }));
  const named = new Map<string, T>();
  const ambiguous: { text: string; invoices: T[] }[] = [];
  for (const candidate of candidates) {
    const exact: T[] = [];
    const numeric: T[] = [];
    for (const { invoice, keys } of keyed) {
      const how = candidateMatches(candidate, keys);
      if (how === 'exact') exact.push(invoice);
      else if (how === 'numeric') numeric.push(invoice);
    }
    const best = exact.length > 0 ? exact : numeric;
    if (best.length === 1) named.set(best[0].id, best[0]);
    else if (best.length > 1) ambiguous.push({ text: candidate.text, invoices: best });
  }
  // A candidate that is ambiguous on its own but whose invoices another candidate already names is settled.
  const unresolved = ambiguous.filter((a) => !a.invoices.some((i) => named.has(i.id)));
  return { invoices: [...named.values()], ambiguous: unresolved };
}
