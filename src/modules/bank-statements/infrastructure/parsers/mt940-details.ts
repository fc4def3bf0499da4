import { BankPayer, cleanText, normalizeAccount } from '../../domain/bank-entry';

/** What field :86: says about a credit: the remittance text and the payer, when the bank structures it. */
export interface Mt940Details {
  reference: string | null;
  payer: BankPayer;
}

/** Banks wrap :86: (and German ?2x subfields) at a fixed width; a full line continues mid-word. */
const MT940_LINE_WIDTH = 65;
const GVC_SUBFIELD_WIDTH = 27;

/** Joins wrapped lines: no space after a line that filled its width (it was cut mid-word), a space otherwise. */
export function joinWrapped(parts: string[], width: number): string {
  let text = '';
  parts.forEach((part, i) => {
    if (i > 0 && (parts[i - 1].length < width || part === '')) text += ' ';
    text += part;
  });
  return text;
}

/**
 * The codes of the SWIFT-style structure (`/CODE/value`) that Dutch, Belgian, Nordic and most
 * SEPA banks write in :86:. A value ends where the next known code starts, so a slash inside a
 * value (`/REMI/USTD//Invoice 1/2`) does not cut it.
 */
const SLASH_CODES = [
  'TRTP', 'CSID', 'MARF', 'EREF', 'PREF', 'REMI', 'IBAN', 'BIC', 'NAME', 'ADDR', 'ORDP', 'BENM', 'CNTP', 'ULTC', 'ULTD', 'ULTB',
  'PURP', 'RTRN', 'ISDT', 'ACCW', 'CDTRREF', 'CDTRREFTP', 'OCMT', 'BUSP', 'SVCL', 'ID', 'CITY', 'CTRY', 'ATXID', 'TRID', 'CHGS', 'EXCH',
];
const SLASH_TOKEN = new RegExp(`/(${SLASH_CODES.join('|')})/`, 'g');
const PARTY_CODES = new Set(['ORDP', 'BENM', 'ULTC', 'ULTD', 'ULTB']);

/** Field :86: of one credit, its lines as written. */
export function parseMt940Details(lines: string[]): Mt940Details {
  const text = joinWrapped(lines.map((l) => l.replace(/\s+$/, '')), MT940_LINE_WIDTH).trim();
  const gvc = /^(\d{3})?([?>])\d{2}/.exec(text);
  if (gvc) return gvcDetails(text.slice(gvc[1]?.length ?? 0), gvc[2]);
  if (/\/(REMI|NAME|IBAN|EREF|TRTP|ORDP|CNTP)\//.test(text)) return slashDetails(text);
  return { reference: cleanText(text), payer: { name: null, account: null, bankId: null } };
}

function slashDetails(text: string): Mt940Details {
  const fields: { code: string; value: string }[] = [];
  const matches = [...text.matchAll(SLASH_TOKEN)];
  matches.forEach((m, i) => {
    const end = i + 1 < matches.length ? matches[i + 1].index : text.length;
    fields.push({ code: m[1], value: text.slice(m.index + m[0].length, end) });
  });
  const payer: BankPayer = { name: null, account: null, bankId: null };
  let party: string | null = null;
  let reference: string | null = null;
  for (const { code, value } of fields) {
    if (PARTY_CODES.has(code)) {
      party = code;
      continue;
    }
    // For a credit the counterparty is the payer: top-level fields, or the ordering party's block.
    const payerField = party === null || party === 'ORDP';
    if (code === 'REMI') reference = remittanceText(value);
    else if (code === 'CNTP' && payerField) {
      // Rabobank: /CNTP/account/BIC/name/city/
      const [account, bic, name] = value.split('/');
      payer.account ??= normalizeAccount(account);
      payer.bankId ??= normalizeAccount(bic);
      payer.name ??= cleanText(name);
    } else if (code === 'NAME' && payerField) payer.name ??= cleanText(trimSlashes(value));
    else if ((code === 'IBAN' || code === 'ACCW') && payerField) payer.account ??= normalizeAccount(trimSlashes(value));
    else if (code === 'BIC' && payerField) payer.bankId ??= normalizeAccount(trimSlashes(value));
  }
  return { reference: reference ?? cleanText(text), payer };
}

/** `/REMI/USTD//Invoice 123/` → "Invoice 123"; `/REMI/STRD/CUR/1234567890/` → "1234567890". */
function remittanceText(value: string): string | null {
  const body = value.replace(/^(USTD\/\/?|STRD\/[A-Z]{3,4}\/)/, '');
  return cleanText(trimSlashes(body));
}

function trimSlashes(value: string): string {
  return value.replace(/^\/+|\/+$/g, '');
}

/**
 * The German (DFÜ-Abkommen) structure: a three-digit business transaction code, then `?NN`
 * subfields — ?20–?29 and ?60–?63 the remittance (SEPA keys such as `SVWZ+` inside), ?30 the
 * payer's bank, ?31 the payer's account, ?32–?33 the payer's name. Some banks write `>` for `?`.
 */
function gvcDetails(text: string, separator: string): Mt940Details {
  const subfields = new Map<number, string>();
  const re = new RegExp(`\\${separator}(\\d{2})([^${separator === '?' ? '?' : '>'}]*)`, 'g');
  for (const m of text.matchAll(re)) subfields.set(Number(m[1]), m[2].replace(/\s+$/, ''));
  const range = (from: number, to: number) =>
    [...subfields.entries()]
      .filter(([n]) => n >= from && n <= to)
      .sort(([a], [b]) => a - b)
      .map(([, v]) => v);
  const remittance = joinWrapped([...range(20, 29), ...range(60, 63)], GVC_SUBFIELD_WIDTH);
  const svwz = /SVWZ\+(.*?)(?=\b(?:EREF|KREF|MREF|CRED|DEBT|ABWA|ABWE|IBAN|BIC)\+|$)/.exec(remittance);
  return {
    reference: cleanText(svwz ? svwz[1] : remittance),
    payer: {
      name: cleanText(joinWrapped(range(32, 33), GVC_SUBFIELD_WIDTH)),
      account: normalizeAccount(subfields.get(31)),
      bankId: normalizeAccount(subfields.get(30)),
    },
  };
}
