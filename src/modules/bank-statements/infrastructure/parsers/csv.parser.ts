import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { bankCurrency, decimalToMinor, isoDate } from '../../domain/bank-amount';
import { BankEntryError, BankFileItem, BankFileRejectedError, cleanText, normalizeAccount } from '../../domain/bank-entry';
import { BankFileSource } from './text-lines';

const COLUMNS = ['date', 'amount', 'currency', 'reference', 'payer_name', 'payer_account', 'bank_entry_id'] as const;
type Column = (typeof COLUMNS)[number];
const REQUIRED: Column[] = ['date', 'amount', 'currency'];
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The CSV of contract §14, streamed row by row (csv-parse): a header row naming the columns
 * (date, amount, currency required; reference, payer_name, payer_account, bank_entry_id
 * optional; other columns ignored), then one row per entry. The amount is a decimal in major
 * units; negative is a debit. The file has no statement account: entries are identified by
 * `bank_entry_id` alone, or by date, amount and row.
 */
export async function* parseCsv(source: BankFileSource): AsyncGenerator<BankFileItem> {
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES });
  const input = Readable.from(source);
  // pipe() does not pass errors on: a failing source (a body over its limit) must end the parse with its error.
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let index: Map<Column, number> | null = null;
  let width = 0;
  let position = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!index) {
        index = headerIndex(record);
        width = record.length;
        continue;
      }
      position++;
      yield row(record, position, index, width);
    }
  } catch (error) {
    if (error instanceof CsvError) throw new BankFileRejectedError(`not a well-formed CSV file: ${error.message}`);
    throw error;
  }
  if (!index) throw new BankFileRejectedError('empty file: no CSV header row');
}

function headerIndex(header: string[]): Map<Column, number> {
  const names = header.map((h) => h.trim().toLowerCase());
  const index = new Map<Column, number>();
  for (const column of COLUMNS) {
    const at = names.indexOf(column);
    if (at >= 0) index.set(column, at);
  }
  const missing = REQUIRED.filter((c) => !index.has(c));
  if (missing.length > 0) {
    throw new BankFileRejectedError(`the header row must name the columns ${COLUMNS.join(', ')}; missing: ${missing.join(', ')}`);
  }
  return index;
}

function row(record: string[], position: number, index: Map<Column, number>, width: number): BankFileItem {
  const value = (column: Column) => {
    const at = index.get(column);
    return at === undefined ? null : (record[at] ?? null);
  };
  try {
    if (record.length !== width) throw new BankEntryError('invalid_entry', `row has ${record.length} fields, the header ${width}`);
    const amountText = value('amount') ?? '';
    const negative = amountText.startsWith('-');
    const bookingDate = isoDate(value('date'), 'date');
    const currency = bankCurrency(value('currency'));
    const amount = decimalToMinor(amountText.replace(/^[-+]/, ''), currency);
    if (negative) return { kind: 'skipped', position, reason: 'debit' };
    return {
      kind: 'credit',
      entry: {
        position,
        account: '',
        bankEntryId: cleanText(value('bank_entry_id')),
        amount,
        currency,
        bookingDate,
        payer: { name: cleanText(value('payer_name')), account: normalizeAccount(value('payer_account')), bankId: null },
        reference: cleanText(value('reference')),
        remittance: [],
      },
    };
  } catch (error) {
    if (error instanceof BankEntryError) return { kind: 'error', position, code: error.code, message: error.message };
    throw error;
  }
}
