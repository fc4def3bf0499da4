import { Injectable } from '@nestjs/common';
import PDFDocument from 'pdfkit';
import { formatMinor } from '../../../shared/domain/money';
import { AGING_BUCKETS } from '../domain/aging';
import { StatementDocument } from './statement-read-model';

const MARGIN = 40;
const ROW = 13;
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const SIZE = 8;
const YIELD_EVERY = 250;
/** Table columns (A4 minus margins = 515 pt); money right-aligned. */
const COLUMNS = [
  { key: 'date', title: 'Date', width: 56, align: 'left' },
  { key: 'type', title: 'Type', width: 52, align: 'left' },
  { key: 'reference', title: 'Reference', width: 92, align: 'left' },
  { key: 'description', title: 'Description', width: 137, align: 'left' },
  { key: 'debit', title: 'Debit', width: 58, align: 'right' },
  { key: 'credit', title: 'Credit', width: 58, align: 'right' },
  { key: 'balance', title: 'Balance', width: 62, align: 'right' },
] as const;
type ColumnKey = (typeof COLUMNS)[number]['key'];
const TABLE_WIDTH = COLUMNS.reduce((w, c) => w + c.width, 0);
const TYPE_LABELS: Record<string, string> = { invoice: 'Invoice', payment: 'Payment', void: 'Void', write_off: 'Write-off', adjustment: 'Adjustment' };
const AGING_LABELS: Record<string, string> = { current: 'Current', days_1_30: '1-30 days', days_31_60: '31-60 days', days_61_90: '61-90 days', days_over_90: 'Over 90 days' };

/**
 * Renders a printable balance-forward statement with pdfkit: issuer and customer header,
 * period and summary, the ledger lines with a running balance (the table header repeats on
 * every page, so 5,000 lines print as ~90 readable pages), totals, aging, and
 * "Page n of m" footers. Built-in Helvetica: text is limited to Latin-1 (WinAnsi).
 */
@Injectable()
export class StatementPdfRenderer {
  async render(s: StatementDocument): Promise<Buffer> {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      bufferPages: true,
      info: { Title: `Statement ${s.customer.name} ${s.from} to ${s.to}`, Author: s.tenant.name, Subject: 'Statement of account' },
    });
    const chunks: Buffer[] = [];
    const done = new Promise<Buffer>((resolve, reject) => {
      doc.on('data', (c: Buffer) => chunks.push(c));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.on('error', reject);
    });
    const money = (amount: number) => formatMinor(amount, s.currency);
    const bottom = () => doc.page.height - MARGIN - 20;

    // Header: who issues it, to whom, for which period.
    doc.font(BOLD).fontSize(16).text(s.tenant.name, MARGIN, MARGIN, { width: 300, lineBreak: false, ellipsis: true });
    doc.fontSize(14).text('Statement of account', MARGIN + 300, MARGIN, { width: TABLE_WIDTH - 300, align: 'right' });
    doc.font(FONT).fontSize(9);
    let y = MARGIN + 30;
    const customerLines = [
      s.customer.name,
      ...(s.customer.external_id ? [`Customer ref: ${s.customer.external_id}`] : []),
      ...(s.customer.email ? [s.customer.email] : []),
      ...addressLines(s.customer.billing_address),
    ];
    doc.font(BOLD).text('Bill to', MARGIN, y);
    doc.font(FONT);
    customerLines.forEach((line, i) => doc.text(line, MARGIN, y + 12 + i * 11, { width: 280, lineBreak: false, ellipsis: true }));
    const facts: [string, string][] = [
      ['Period', `${s.from} to ${s.to}`],
      ['Currency', s.currency.toUpperCase()],
      ['Opening balance', money(s.opening_balance)],
      ['Total debits', money(s.total_debits)],
      ['Total credits', money(s.total_credits)],
      ['Closing balance', money(s.closing_balance)],
    ];
    facts.forEach(([label, value], i) => {
      doc.font(i === facts.length - 1 ? BOLD : FONT);
      doc.text(label, MARGIN + 300, y + i * 12, { width: 90, lineBreak: false });
      doc.text(value, MARGIN + 390, y + i * 12, { width: TABLE_WIDTH - 390, align: 'right', lineBreak: false });
    });
    y += Math.max(12 + customerLines.length * 11, facts.length * 12) + 16;

    // The ledger lines.
    const tableHeader = () => {
      doc.rect(MARGIN, y - 2, TABLE_WIDTH, ROW).fill('#e8e8e8').fillColor('black');
      doc.font(BOLD).fontSize(SIZE);
      row(Object.fromEntries(COLUMNS.map((c) => [c.key, c.title])) as Record<ColumnKey, string>);
      doc.font(FONT);
    };
    const row = (cells: Record<ColumnKey, string>) => {
      let x = MARGIN;
      for (const c of COLUMNS) {
        doc.text(cells[c.key], x + 2, y + 1, { width: c.width - 4, align: c.align, lineBreak: false, ellipsis: true, height: ROW });
        x += c.width;
      }
      y += ROW;
    };
    const ensureRoom = (rows: number) => {
      if (y + rows * ROW <= bottom()) return;
      doc.addPage();
      y = MARGIN;
      tableHeader();
    };
    tableHeader();
    row({ date: s.from, type: '', reference: '', description: 'Opening balance', debit: '', credit: '', balance: money(s.opening_balance) });
    for (const [i, line] of s.lines.entries()) {
      // pdfkit is synchronous (~0.15 ms of CPU a line): a long statement yields to the event
      // loop now and then so that other requests on this instance keep flowing.
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      ensureRoom(1);
      row({
        date: line.date,
        type: TYPE_LABELS[line.type] ?? line.type,
        reference: latin1(line.reference ?? ''),
        description: latin1(line.description),
        debit: line.debit ? money(line.debit) : '',
        credit: line.credit ? money(line.credit) : '',
        balance: money(line.balance),
      });
    }
    ensureRoom(2);
    doc.moveTo(MARGIN, y).lineTo(MARGIN + TABLE_WIDTH, y).lineWidth(0.5).stroke();
    y += 2;
    doc.font(BOLD);
    row({ date: s.to, type: '', reference: '', description: 'Totals / closing balance', debit: money(s.total_debits), credit: money(s.total_credits), balance: money(s.closing_balance) });

    // Aging of what is still open as of `to`.
    y += 14;
    if (y + 4 * ROW > bottom()) {
      doc.addPage();
      y = MARGIN;
    }
    doc.font(BOLD).fontSize(10).text(`Aging as of ${s.to}`, MARGIN, y);
    y += 16;
    doc.fontSize(SIZE);
    const agingWidth = TABLE_WIDTH / (AGING_BUCKETS.length + 1);
    const agingRow = (cells: string[], font: string) => {
      doc.font(font);
      cells.forEach((cell, i) => doc.text(cell, MARGIN + i * agingWidth, y, { width: agingWidth - 4, align: 'right', lineBreak: false }));
      y += ROW;
    };
    const total = AGING_BUCKETS.reduce((sum, b) => sum + s.aging[b.key], 0);
    agingRow([...AGING_BUCKETS.map((b) => AGING_LABELS[b.key]), 'Total open'], BOLD);
    agingRow([...AGING_BUCKETS.map((b) => money(s.aging[b.key])), money(total)], FONT);

    // Footers once the page count is known.
    const range = doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      const margin = doc.page.margins.bottom;
      doc.page.margins.bottom = 0; // writing inside the bottom margin must not start a new page
      doc.font(FONT).fontSize(7).fillColor('#555555');
      const footerY = doc.page.height - MARGIN + 8;
      doc.text(`${latin1(s.customer.name)} - statement ${s.from} to ${s.to} - generated ${s.generated_at}`, MARGIN, footerY, { width: 400, lineBreak: false, ellipsis: true });
      doc.text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN + 400, footerY, { width: TABLE_WIDTH - 400, align: 'right', lineBreak: false });
      doc.fillColor('black');
      doc.page.margins.bottom = margin;
    }
    doc.end();
    return done;
  }
}

function addressLines(a: StatementDocument['customer']['billing_address']): string[] {
  if (!a) return [];
  const cityLine = [a.postal_code, a.city, a.region].filter(Boolean).join(' ');
  return [a.line1, a.line2, cityLine, a.country].filter((l): l is string => !!l).map(latin1);
}

/** The built-in fonts encode WinAnsi: anything else prints as '?' rather than as garbage. */
function latin1(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}
