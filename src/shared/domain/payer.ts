/**
 * Who paid, as a bank or a client reports it (contract §14), and the two comparisons the service
 * makes with it: an account equals a customer's payer account, a name equals a customer's name
 * or alias — each after the normalisation below, so that "MÜLLER & SÖHNE GmbH" and
 * "Muller Sohne" are the same payer, and nothing closer than that ever is.
 */
export interface Payer {
  name: string | null;
  /** IBAN or account number, normalised: no spaces, upper case */
  account: string | null;
  /** the payer's bank (BIC, routing or sort code) */
  bankId: string | null;
}

export const MAX_PAYER_TEXT = 200;

/** An IBAN or account number as §14 compares them: without spaces, upper case; null when empty. */
export function normalizePayerAccount(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const compact = value.replace(/\s+/g, '').toUpperCase();
  return compact === '' ? null : compact;
}

/** The legal suffixes §14 removes when they end a name (compared after normalisation). */
export const LEGAL_SUFFIXES: readonly string[] = [
  'inc', 'incorporated', 'llc', 'ltd', 'limited', 'corp', 'corporation', 'co', 'company', 'gmbh', 'ag', 'sa', 'sas', 'sarl',
  'bv', 'nv', 'oy', 'ab', 'as', 'spa', 'srl', 'pty', 'plc',
];
const SUFFIXES = new Set(LEGAL_SUFFIXES);

/**
 * A payer or customer name as §14 compares names: accents removed by Unicode decomposition
 * (Ö → o), lower case, every punctuation mark or symbol a space, whitespace collapsed, and the
 * legal suffixes removed while they end the name ("Foo Co. Ltd" → "foo"; a name that is nothing
 * but a suffix keeps it). Null when nothing is left.
 */
export function normalizePayerName(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const known = normalizedNames.get(value);
  if (known !== undefined) return known;
  const normalized = normalizeName(value);
  // A bank file names the same payers again and again; the Unicode passes are the cost (bounded memo).
  if (normalizedNames.size >= NAMES_REMEMBERED) normalizedNames.clear();
  if (value.length <= MAX_PAYER_TEXT) normalizedNames.set(value, normalized);
  return normalized;
}

const NAMES_REMEMBERED = 10_000;
const normalizedNames = new Map<string, string | null>();

function normalizeName(value: string): string | null {
  const words = value
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
  while (words.length > 1 && SUFFIXES.has(words[words.length - 1])) words.pop();
  return words.length === 0 ? null : words.join(' ');
}
