import { Figure } from '../../../shared/domain/figure';
import { toMajorUnits } from '../../../shared/domain/money';
import { StatementLine, StatementReading } from '../application/statement-read-model';

/** Minor units first (as in JSON, and as this CSV always had them), then the currency and the same amounts in major units. */
export const CSV_HEADER = ['date', 'type', 'reference', 'description', 'debit', 'credit', 'balance', 'currency', 'debit_major', 'credit_major', 'balance_major'] as const;
const LINES_PER_CHUNK = 500;

/**
 * The statement as CSV (RFC 4180: CRLF, quotes doubled), written as the lines come: a header, an
 * `opening_balance` row dated `from`, then one row per line. Amounts in minor units (integers) and
 * in major units as decimal strings with the currency's ISO 4217 number of decimals (`1250.50`
 * USD, `1250` JPY, `1.250` BHD), so a spreadsheet needs no conversion. Text cells a spreadsheet
 * would run as a formula (=, +, -, @) get a leading apostrophe (CSV injection).
 */
export async function* statementCsvChunks(reading: StatementReading): AsyncGenerator<string> {
  const { summary } = reading;
  const major = (minor: Figure) => toMajorUnits(minor, summary.currency);
  const row = (cells: (string | Figure)[]) => cells.join(',');
  const out = [
    CSV_HEADER.join(','),
    row([summary.from, 'opening_balance', '', 'Opening balance', '', '', summary.opening_balance, summary.currency, '', '', major(summary.opening_balance)]),
  ];
  const line = (l: StatementLine) =>
    row([l.date, l.type, text(l.reference ?? ''), text(l.description), l.debit, l.credit, l.balance, summary.currency, major(l.debit), major(l.credit), major(l.balance)]);
  for await (const l of reading.lines) {
    out.push(line(l));
    if (out.length >= LINES_PER_CHUNK) yield `${out.splice(0).join('\r\n')}\r\n`;
  }
  if (out.length > 0) yield `${out.join('\r\n')}\r\n`;
}

function text(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
