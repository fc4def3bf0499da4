import { bankCurrency, decimalToMinor, yymmddDate } from '../../domain/bank-amount';
import { BankEntryError, BankFileItem, BankFileRejectedError, cleanText, normalizeAccount } from '../../domain/bank-entry';
import { parseMt940Details } from './mt940-details';
import { BankFileSource, textLines } from './text-lines';

const TAG = /^:(\d{2}[A-Z]?|NS):/;
/**
 * Field :61: (statement line): value date YYMMDD, entry date MMDD (optional), mark (C, D, RC, RD;
 * EC/ED in interim reports), funds code (optional letter), amount with a decimal comma,
 * transaction type (N/S/F + 3), the owner's reference, `//` and the bank's reference.
 */
const STATEMENT_LINE = /^(\d{6})(\d{4})?(RC|RD|EC|ED|C|D)([A-Z])?(\d[\d,]{0,15})([NSF][A-Z0-9]{3})([^\n]*)$/;
/** Field :60F:/:60M: (opening balance): mark, date, currency, amount. */
const BALANCE = /^([CD])(\d{6})([A-Z]{3})([\d,]+)/;
/** At most this many lines in one field: :86: has 6 by the standard, banks write a few more. */
const MAX_FIELD_LINES = 50;

interface Statement {
  account: string | null;
  currency: string | null;
  closed: boolean;
}

interface PendingLine {
  position: number;
  lines: string[];
  details: string[] | null;
}

/**
 * SWIFT MT940 (customer statement), streamed line by line: a file may hold several messages
 * (with or without the {1:}{2:}{4: blocks) and several statements, each :20: … :62F:. Credits
 * (`C`) become payments; `D`, `RC`, `RD` are skipped (§14). A :61: that cannot be read is one bad
 * entry; a statement without its account, opening balance or closing balance is a broken file.
 */
export async function* parseMt940(source: BankFileSource): AsyncGenerator<BankFileItem> {
  let statement: Statement | null = null;
  let statements = 0;
  let position = 0;
  let pending: PendingLine | null = null;
  let field: { tag: string; lines: string[]; lineNumber: number } | null = null;

  function* flushLine(): Generator<BankFileItem> {
    if (pending) yield statementLine(pending, statement!);
    pending = null;
  }

  function* finishField(): Generator<BankFileItem> {
    if (!field) return;
    const { tag, lines, lineNumber } = field;
    field = null;
    if (tag === '20') {
      if (statement && !statement.closed) throw new BankFileRejectedError(`line ${lineNumber}: a new statement (:20:) starts before the previous one closed (:62F:)`);
      statement = { account: null, currency: null, closed: false };
      statements++;
      return;
    }
    if (tag === 'NS') return;
    // after the closing balance come the available balances and information for the owner
    if (statement?.closed && ['64', '65', '86'].includes(tag)) return;
    if (!statement || statement.closed) {
      throw new BankFileRejectedError(`line ${lineNumber}: field :${tag}: outside a statement (no :20: before it)`);
    }
    if (tag === '25') {
      statement.account = normalizeAccount(lines.join(''));
      return;
    }
    if (tag === '60F' || tag === '60M') {
      const m = BALANCE.exec(lines[0]);
      if (!m) throw new BankFileRejectedError(`line ${lineNumber}: opening balance :${tag}: is not mark, date, currency and amount`);
      statement.currency = m[3].toLowerCase();
      return;
    }
    if (tag === '61') {
      yield* flushLine();
      if (!statement.account || !statement.currency) {
        throw new BankFileRejectedError(`line ${lineNumber}: a statement line (:61:) before the statement's account (:25:) and opening balance (:60F:)`);
      }
      position++;
      pending = { position, lines, details: null };
      return;
    }
    if (tag === '86') {
      // :86: right after a :61: describes it; elsewhere it is information for the whole statement.
      if (pending && pending.details === null) pending.details = lines;
      else yield* flushLine();
      return;
    }
    yield* flushLine();
    if (tag === '62F' || tag === '62M') {
      if (!statement.account || !statement.currency) throw new BankFileRejectedError(`line ${lineNumber}: statement closed without account (:25:) or opening balance (:60F:)`);
      statement.closed = true;
    }
  }

  for await (const { text: raw, number } of textLines(source)) {
    let text = raw;
    // SWIFT FIN envelope: {1:…}{2:…}{3:…}{4: opens the text block, -} closes it.
    const block4 = text.indexOf('{4:');
    if (text.startsWith('{')) {
      if (block4 < 0) continue;
      text = text.slice(block4 + 3);
    }
    if (text.startsWith('-')) {
      // end of a message (`-` or `-}`, maybe followed by the trailer block)
      yield* finishField();
      continue;
    }
    if (text.trim() === '' || text.trim() === '}') continue;
    const tag = TAG.exec(text);
    if (tag) {
      yield* finishField();
      field = { tag: tag[1], lines: [text.slice(tag[0].length)], lineNumber: number };
    } else if (field) {
      if (field.lines.length >= MAX_FIELD_LINES) throw new BankFileRejectedError(`line ${number}: field :${field.tag}: has more than ${MAX_FIELD_LINES} lines`);
      field.lines.push(text);
    } else if (number > 5) {
      // Some banks put a short header (sender, "940", receiver) before the first :20:; nothing else goes untagged.
      throw new BankFileRejectedError(`line ${number}: "${text.slice(0, 40)}" is not an MT940 field (:NN:)`);
    }
  }
  yield* finishField();
  yield* flushLine();
  if (statements === 0) throw new BankFileRejectedError('no MT940 statement (:20: … :62F:) in the file');
  if (!(statement as Statement | null)?.closed) throw new BankFileRejectedError('the last statement has no closing balance (:62F:): the file is incomplete');
}

function statementLine(line: PendingLine, statement: Statement): BankFileItem {
  const { position } = line;
  try {
    const m = STATEMENT_LINE.exec(line.lines[0].trim());
    if (!m) throw new BankEntryError('invalid_entry', `statement line :61:${line.lines[0].slice(0, 40)} is not date, mark, amount and type`);
    const [, valueDate, entryDate, mark, , amountText, , rest] = m;
    if (mark !== 'C') return { kind: 'skipped', position, reason: mark === 'D' ? 'debit' : mark.startsWith('R') ? 'reversal' : 'not_booked' };
    const currency = bankCurrency(statement.currency);
    const amount = decimalToMinor(amountText, currency, ',');
    const valueDay = yymmddDate(valueDate, 'value date');
    const bankRef = rest.includes('//') ? rest.slice(rest.indexOf('//') + 2).trim() : '';
    const details = line.details ? parseMt940Details(line.details) : { reference: null, payer: { name: null, account: null, bankId: null } };
    return {
      kind: 'credit',
      entry: {
        position,
        account: statement.account!,
        bankEntryId: bankRef === '' || bankRef.toUpperCase() === 'NONREF' ? null : cleanText(bankRef),
        amount,
        currency,
        bookingDate: entryDate ? bookingDate(valueDay, entryDate) : valueDay,
        payer: details.payer,
        reference: details.reference,
        remittance: [],
      },
    };
  } catch (error) {
    if (error instanceof BankEntryError) return { kind: 'error', position, code: error.code, message: error.message };
    throw error;
  }
}

/**
 * The booking (entry) date carries no year: it is the one nearest the value date, so a value
 * date of 31 December booked on 2 January lands in the next year.
 */
function bookingDate(valueDay: string, mmdd: string): string {
  const year = Number(valueDay.slice(0, 4));
  const candidates = [year - 1, year, year + 1].map((y) => `${y}-${mmdd.slice(0, 2)}-${mmdd.slice(2, 4)}`);
  const valueTime = Date.parse(valueDay);
  const nearest = candidates
    .map((date) => ({ date, distance: Math.abs(Date.parse(date) - valueTime) }))
    .filter(({ distance }) => Number.isFinite(distance))
    .sort((a, b) => a.distance - b.distance)[0];
  return yymmddDate(nearest ? nearest.date.slice(2).replace(/-/g, '') : `00${mmdd}`, 'entry date');
}
