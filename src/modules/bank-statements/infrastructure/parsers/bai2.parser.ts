import { bankCurrency, integerToMinor, yymmddDate } from '../../domain/bank-amount';
import { BankEntryError, BankFileItem, BankFileRejectedError, BankPayer, cleanText, normalizeAccount } from '../../domain/bank-entry';
import { BankFileSource, textLines } from './text-lines';

/** BAI type codes 100–399 are credits (§14), 400–699 debits; 700–799 loans and 900–999 custom are neither. */
const isCreditType = (code: number) => code >= 100 && code <= 399;
/** Lockbox: a 115 deposit is the total of the 116 items reported with it. */
const LOCKBOX_DEPOSIT = 115;
const LOCKBOX_ITEM = 116;

/** A record and its 88 continuations, split into fields (the 16 record's text kept whole). */
interface LogicalRecord {
  code: string;
  /** the physical records, delimiter included, as written */
  parts: string[];
  line: number;
}

interface Group {
  asOfDate: string;
  currency: string | null;
  /** group status 2 (deletion) or 4 (test only): nothing in it is money received */
  informational: boolean;
}

interface Account {
  number: string;
  currency: string;
  /** lockbox deposits held until the account ends: skipped if the account lists their items */
  deposits: BankFileItem[];
  hasLockboxItems: boolean;
}

/**
 * BAI2 (BAI Cash Management Balance Reporting, version 2), streamed record by record:
 * 01 file header, 02 group header (as-of date, currency), 03 account, 16 transaction detail with
 * its 88 continuations, 49/98/99 trailers. A 16 with a type code 100–399 is a credit: a payment
 * dated the group's as-of date, its bank reference the entry id, its text and continuations the
 * reference. Amounts carry no decimal point: they are minor units already. The nesting of the
 * records is checked (a file cut short has no 99); the control totals are not (the standard's
 * own sample file does not add up, and banks differ in what they count).
 */
export async function* parseBai2(source: BankFileSource): AsyncGenerator<BankFileItem> {
  let record: LogicalRecord | null = null;
  let sawHeader = false;
  let sawTrailer = false;
  let group: Group | null = null;
  let account: Account | null = null;
  let position = 0;

  function* finish(rec: LogicalRecord): Generator<BankFileItem> {
    const fields = () => fieldsOf(rec);
    switch (rec.code) {
      case '01': {
        if (sawHeader) throw rejected(rec, 'a second file header (01)');
        const version = fields()[8];
        if (version !== undefined && version !== '2') throw rejected(rec, `file header says BAI version ${version}, not 2`);
        sawHeader = true;
        return;
      }
      case '02': {
        if (group) throw rejected(rec, 'a group header (02) inside a group: the previous group has no trailer (98)');
        const f = fields();
        let asOfDate: string;
        try {
          asOfDate = yymmddDate(f[4] ?? '', 'as-of date');
        } catch {
          throw rejected(rec, `group header as-of date "${f[4] ?? ''}" is not YYMMDD`);
        }
        group = { asOfDate, currency: f[6] ? f[6].toLowerCase() : null, informational: f[3] === '2' || f[3] === '4' };
        return;
      }
      case '03': {
        if (!group) throw rejected(rec, 'an account (03) outside a group');
        if (account) throw rejected(rec, 'an account (03) inside an account: the previous account has no trailer (49)');
        const f = fields();
        const number = normalizeAccount(f[1]);
        if (!number) throw rejected(rec, 'an account (03) without an account number');
        account = { number, currency: f[2] ? f[2].toLowerCase() : group.currency ?? 'usd', deposits: [], hasLockboxItems: false };
        return;
      }
      case '16': {
        if (!account || !group) throw rejected(rec, 'a transaction (16) outside an account');
        position++;
        const item = transaction(rec, position, group, account);
        if (item.kind === 'credit' && typeCodeOf(rec) === LOCKBOX_DEPOSIT) account.deposits.push(item);
        else yield item;
        if (typeCodeOf(rec) === LOCKBOX_ITEM) account.hasLockboxItems = true;
        return;
      }
      case '49': {
        if (!account) throw rejected(rec, 'an account trailer (49) without its account (03)');
        const { deposits, hasLockboxItems } = account;
        account = null;
        for (const deposit of deposits) {
          yield hasLockboxItems && deposit.kind === 'credit' ? { kind: 'skipped', position: deposit.entry.position, reason: 'deposit_total' } : deposit;
        }
        return;
      }
      case '98':
        if (!group || account) throw rejected(rec, 'a group trailer (98) without its group (02), or before its account trailer (49)');
        group = null;
        return;
      case '99':
        if (group) throw rejected(rec, 'the file trailer (99) before the group trailer (98)');
        sawTrailer = true;
        return;
      default:
        throw rejected(rec, `unknown record code "${rec.code}"`);
    }
  }

  for await (const { text, number } of textLines(source)) {
    const line = text.replace(/\s+$/, '');
    if (line === '') continue;
    const code = line.slice(0, 2);
    if (!/^\d{2}$/.test(code) || (line.length > 2 && line[2] !== ',' && line[2] !== '/')) {
      throw new BankFileRejectedError(`line ${number}: "${line.slice(0, 40)}" is not a BAI2 record (two-digit code and a comma)`);
    }
    if (!record && code !== '01') throw new BankFileRejectedError(`line ${number}: a BAI2 file starts with a file header (01)`);
    if (code === '88') {
      if (!record) throw new BankFileRejectedError(`line ${number}: a continuation (88) with no record before it`);
      record.parts.push(line);
      continue;
    }
    if (record?.code === '99') throw new BankFileRejectedError(`line ${number}: records after the file trailer (99)`);
    if (record) yield* finish(record);
    record = { code, parts: [line], line: number };
  }
  if (record) yield* finish(record);
  if (!record) throw new BankFileRejectedError('empty file: no BAI2 file header (01)');
  if (!sawTrailer) throw new BankFileRejectedError('no file trailer (99): the file is incomplete');
}

function rejected(rec: LogicalRecord, what: string): BankFileRejectedError {
  return new BankFileRejectedError(`line ${rec.line}: ${what}`);
}

/** The fields of a record other than 16: each physical record ends at its `/`, an 88 continues the field list. */
function fieldsOf(rec: LogicalRecord): string[] {
  return rec.parts
    .map((part, i) => (i === 0 ? part : part.slice(3)))
    .map((part) => part.replace(/\/.*$/, ''))
    .join(',')
    .split(',')
    .map((f) => f.trim());
}

function typeCodeOf(rec: LogicalRecord): number {
  return Number(rec.parts[0].split(',')[1]);
}

/**
 * Record 16: type code, amount, funds type (with 0–n fields of its own), bank reference,
 * customer reference, text. The text is the rest of the record — commas and slashes included —
 * and runs on in 88 records; a 16 or 88 that ends before the text ends with `/`.
 */
function transaction(rec: LogicalRecord, position: number, group: Group, account: Account): BankFileItem {
  try {
    const { fields, text } = splitTransaction(rec);
    const [typeText, amountText, bankRef, customerRef] = fields;
    if (!/^\d{3}$/.test(typeText ?? '')) throw new BankEntryError('invalid_entry', `type code "${(typeText ?? '').slice(0, 10)}" is not three digits`);
    const type = Number(typeText);
    if (!isCreditType(type)) return { kind: 'skipped', position, reason: 'debit' };
    if (group.informational) return { kind: 'skipped', position, reason: 'not_booked' };
    const currency = bankCurrency(account.currency);
    const amount = integerToMinor(amountText ?? '');
    return {
      kind: 'credit',
      entry: {
        position,
        account: account.number,
        bankEntryId: cleanText(bankRef),
        amount,
        currency,
        bookingDate: group.asOfDate,
        payer: payerFromText(text),
        reference: cleanText(text) ?? cleanText(customerRef),
        remittance: [],
        method: methodOf(type),
      },
    };
  } catch (error) {
    if (error instanceof BankEntryError) return { kind: 'error', position, code: error.code, message: error.message };
    throw error;
  }
}

/** BAI type codes by how the money came: lockbox and check deposits, ACH, wires (incoming money transfers). */
function methodOf(type: number): 'ach' | 'wire' | 'check' | 'other' {
  if ((type >= 110 && type <= 118) || (type >= 170 && type <= 190 && type !== 182)) return 'check';
  if (type >= 140 && type <= 169) return 'ach';
  if (type >= 191 && type <= 208) return 'wire';
  return 'other';
}

/** How many fields each funds type adds after itself. */
function fundsFieldCount(fundsType: string, next: () => string | undefined): number {
  switch (fundsType.toUpperCase()) {
    case '':
    case '0':
    case '1':
    case '2':
    case 'Z':
      return 0;
    case 'S':
      return 3;
    case 'V':
      return 2;
    case 'D': {
      const count = Number(next());
      if (!Number.isInteger(count) || count < 0 || count > 100) throw new BankEntryError('invalid_entry', 'distributed availability (D) without a valid count');
      return count * 2;
    }
    default:
      throw new BankEntryError('invalid_entry', `funds type "${fundsType.slice(0, 5)}" is not one of 0, 1, 2, S, V, D, Z`);
  }
}

/** The fixed fields of a 16 (type, amount, bank reference, customer reference) and its text, across its 88s. */
function splitTransaction(rec: LogicalRecord): { fields: string[]; text: string } {
  const contents = rec.parts.map((part) => part.slice(3));
  let part = 0;
  // what is left of the current physical record; null once it ended with `/`
  let rest: string | null = contents[0];
  const take = (): string | undefined => {
    while (rest === null) {
      if (++part >= contents.length) return undefined;
      rest = contents[part];
    }
    const delimiter = /[,/]/.exec(rest);
    if (!delimiter) {
      const value: string = rest;
      rest = null;
      return value;
    }
    const value = rest.slice(0, delimiter.index);
    rest = delimiter[0] === ',' ? rest.slice(delimiter.index + 1) : null;
    return value;
  };

  const type = take() ?? '';
  const amount = take() ?? '';
  const extra = fundsFieldCount(take() ?? '', take);
  for (let i = 0; i < extra; i++) take();
  const bankRef = take() ?? '';
  const customerRef = take() ?? '';
  // The rest of this record and every later 88 is text; a lone `/` closes a record without text,
  // and many banks end the text with one although the standard does not.
  const parts = [...(rest !== null ? [rest] : []), ...contents.slice(part + 1)].map((t) => t.trim()).filter((t) => t !== '');
  if (parts.length > 0) parts[parts.length - 1] = parts[parts.length - 1].replace(/\/$/, '');
  return { fields: [type, amount, bankRef, customerRef], text: parts.filter((t) => t !== '').join(' ') };
}

/**
 * The payer's name where banks label it in the text: the ACH originator (`ORIG CO NAME:`) or a
 * wire's ordering party (`B/O:`, `ORG=`). The value runs to the next known label.
 */
const PAYER_LABEL = /(?:^|\s)(?:ORIG CO NAME|B\/O|ORG)\s*[:=]\s*/;
const NEXT_LABEL =
  /\s(?:ORIG ID|ORIG CO ID|CO ID|DESC DATE|CO ENTRY DESCR|ENTRY DESCR|SEC|TRACE#|TRACE NO|TRACE|EED|IND ID|IND NAME|ADDENDA|RMR|SETT DATE|OBI|BBI|BNF|REF|FED REF|IMAD|OMAD|SND BK|RCV BK|OGB|ORIG BK)\s*[:=]/;

function payerFromText(text: string): BankPayer {
  const label = PAYER_LABEL.exec(text);
  if (!label) return { name: null, account: null, bankId: null };
  const rest = text.slice(label.index + label[0].length);
  const end = NEXT_LABEL.exec(rest);
  // A wire's ORG= may start with the payer's account: "/123456789 ACME CORP".
  const name = (end ? rest.slice(0, end.index) : rest).replace(/^\/\S+\s*/, '');
  return { name: cleanText(name), account: null, bankId: null };
}
