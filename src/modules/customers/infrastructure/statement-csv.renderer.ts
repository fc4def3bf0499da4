import { StatementView } from './statement-read-model';

const HEADER = ['date', 'type', 'reference', 'description', 'debit', 'credit', 'balance'] as const;

/**
 * The statement's lines as CSV (RFC 4180: CRLF, quotes doubled), amounts in minor units like
 * the JSON. Text cells that a spreadsheet would run as a formula (=, +, -, @) get a leading
 * apostrophe (CSV injection).
 */
export function renderStatementCsv(s: StatementView): string {
  const out = [HEADER.join(',')];
  for (const l of s.lines) {
    out.push([l.date, l.type, text(l.reference ?? ''), text(l.description), l.debit, l.credit, l.balance].join(','));
  }
  return `${out.join('\r\n')}\r\n`;
}

function text(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
