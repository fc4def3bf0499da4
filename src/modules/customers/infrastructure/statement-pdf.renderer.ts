import { readFileSync } from 'node:fs';
import { Injectable, Logger } from '@nestjs/common';
import PDFDocument from 'pdfkit';
import { Figure, figure, toBigInt } from '../../../shared/domain/figure';
import { formatMinor } from '../../../shared/domain/money';
import { AGING_BUCKETS } from '../domain/aging';
import { StatementReading, StatementSummary } from '../application/statement-read-model';

/**
 * The most lines a PDF statement holds (about 95 pages): pdfkit lays out a line in ~0.5 ms of CPU
 * with an embedded font, so this is 2-3 s of work and two at once stay well under 10 s on two
 * busy cores (docs/benchmarks.md). Longer periods are a 400 that says how to narrow them; CSV and
 * JSON have no such limit (they stream).
 */
export const PDF_MAX_LINES = 5_000;
/**
 * pdfkit keeps the layout of every distinct word it has set in each font until the document ends
 * (tens of MB for thousands of lines of amounts and references); forgetting it every so many lines
 * bounds that memory and keeps most of the benefit (dates, types and labels repeat within a page).
 */
const LAYOUT_CACHE_LINES = 500;

/**
 * DejaVu Sans (the dejavu-fonts-ttf package): Latin with its extensions, Greek, Cyrillic and more,
 * embedded as a subset of the glyphs used. The built-in PDF fonts only know WinAnsi (Latin-1).
 */
const FONT_FILES = {
  regular: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
  bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
};
const FONT = 'Sans';
const BOLD = 'Sans-Bold';
const MARGIN = 40;
const ROW = 13;
const SIZE = 7.5;
const YIELD_EVERY = 250;
/** Table columns (A4 minus margins = 515 pt); money right-aligned. */
const COLUMNS = [
  { key: 'date', title: 'Date', width: 54, align: 'left' },
  { key: 'type', title: 'Type', width: 54, align: 'left' },
  { key: 'reference', title: 'Reference', width: 90, align: 'left' },
  { key: 'description', title: 'Description', width: 135, align: 'left' },
  { key: 'debit', title: 'Debit', width: 60, align: 'right' },
  { key: 'credit', title: 'Credit', width: 60, align: 'right' },
  { key: 'balance', title: 'Balance', width: 62, align: 'right' },
] as const;
type ColumnKey = (typeof COLUMNS)[number]['key'];
const TABLE_WIDTH = COLUMNS.reduce((w, c) => w + c.width, 0);
const TYPE_LABELS: Record<string, string> = {
  invoice: 'Invoice',
  payment: 'Payment',
  void: 'Void',
  write_off: 'Write-off',
  adjustment: 'Adjustment',
  credit_note: 'Credit',
  refund: 'Refund',
};
const AGING_LABELS: Record<string, string> = { current: 'Current', days_1_30: '1-30 days', days_31_60: '31-60 days', days_61_90: '61-90 days', days_over_90: 'Over 90 days' };
/** The aging block: a gap, its title, two rows, the credit and the balance rows. */
const AGING_HEIGHT = 14 + 16 + 4 * ROW;

/**
 * Where each table row goes: `rows` rows from `y`, breaking to a new page (whose table header
 * takes one row) when they would not fit above `bottom`. The same arithmetic paginates the dry
 * run that counts the pages ("Page n of m" is written on each page as it starts, so the document
 * streams out page by page instead of waiting in memory for the count).
 */
class Pager {
  page = 1;
  constructor(
    public y: number,
    private readonly bottom: number,
    private readonly onNewPage: () => void = () => undefined,
  ) {}

  /** Room for `height` points, else a new page; returns true when it broke the page. */
  room(height: number, withTableHeader: boolean): boolean {
    if (this.y + height <= this.bottom) return false;
    this.page++;
    this.y = MARGIN;
    this.onNewPage();
    if (withTableHeader) this.y += ROW;
    return true;
  }
}

/**
 * Renders a printable balance-forward statement with pdfkit: issuer and customer header, period and
 * summary, the ledger lines with a running balance (the table header repeats on every page), totals,
 * aging as of `to` with the unapplied credit, and "Page n of m" footers. The document is a stream:
 * pages go out as they are finished, while the lines are still being read.
 */
@Injectable()
export class StatementPdfRenderer {
  private readonly logger = new Logger('StatementPdfRenderer');

  render(reading: StatementReading): NodeJS.ReadableStream {
    const s = reading.summary;
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      info: { Title: `Statement ${s.customer.name} ${s.from} to ${s.to}`, Author: s.tenant.name, Subject: 'Statement of account' },
    });
    doc.registerFont(FONT, FONT_FILES.regular);
    doc.registerFont(BOLD, FONT_FILES.bold);
    this.draw(doc, reading).catch((error: Error) => {
      this.logger.error(`statement PDF failed: ${error.message}`);
      doc.destroy(error);
    });
    return doc;
  }

  private async draw(doc: PDFKit.PDFDocument, reading: StatementReading): Promise<void> {
    const s = reading.summary;
    const money = (amount: Figure) => formatMinor(amount, s.currency);
    const bottom = doc.page.height - MARGIN - 20;
    const customerLines = [
      s.customer.name,
      ...(s.customer.external_id ? [`Customer ref: ${s.customer.external_id}`] : []),
      ...(s.customer.email ? [s.customer.email] : []),
      ...addressLines(s.customer.billing_address),
    ];
    const facts: [string, string][] = [
      ['Period', `${s.from} to ${s.to}`],
      ['Currency', s.currency.toUpperCase()],
      ['Opening balance', money(s.opening_balance)],
      ['Total debits', money(s.total_debits)],
      ['Total credits', money(s.total_credits)],
      ['Closing balance', money(s.closing_balance)],
    ];
    const tableTop = MARGIN + 30 + Math.max(12 + customerLines.length * 11, facts.length * 12) + 16;
    const pages = countPages(tableTop, bottom, s.line_count);

    let pageNumber = 1;
    const footer = () => {
      const margin = doc.page.margins.bottom;
      doc.page.margins.bottom = 0; // writing inside the bottom margin must not start a new page
      doc.font(FONT).fontSize(7).fillColor('#555555');
      const footerY = doc.page.height - MARGIN + 8;
      doc.text(`${s.customer.name} - statement ${s.from} to ${s.to} - generated ${s.generated_at}`, MARGIN, footerY, { width: 400, lineBreak: false, ellipsis: true });
      doc.text(`Page ${pageNumber} of ${pages}`, MARGIN + 400, footerY, { width: TABLE_WIDTH - 400, align: 'right', lineBreak: false });
      doc.fillColor('black');
      doc.page.margins.bottom = margin;
    };
    const row = (y: number, cells: Record<ColumnKey, string>) => {
      let x = MARGIN;
      for (const c of COLUMNS) {
        doc.text(cells[c.key], x + 2, y + 1, { width: c.width - 4, align: c.align, lineBreak: false, ellipsis: true, height: ROW });
        x += c.width;
      }
    };
    const tableHeader = (y: number) => {
      doc.rect(MARGIN, y - 2, TABLE_WIDTH, ROW).fill('#e8e8e8').fillColor('black');
      doc.font(BOLD).fontSize(SIZE);
      row(y, Object.fromEntries(COLUMNS.map((c) => [c.key, c.title])) as Record<ColumnKey, string>);
      doc.font(FONT);
    };
    const pager = new Pager(tableTop, bottom, () => {
      doc.addPage();
      pageNumber++;
      footer();
      tableHeader(MARGIN);
    });
    footer();

    // Header: who issues it, to whom, for which period.
    doc.font(BOLD).fontSize(16).text(s.tenant.name, MARGIN, MARGIN, { width: 300, lineBreak: false, ellipsis: true });
    doc.fontSize(14).text('Statement of account', MARGIN + 300, MARGIN, { width: TABLE_WIDTH - 300, align: 'right' });
    doc.font(FONT).fontSize(9);
    const y = MARGIN + 30;
    doc.font(BOLD).text('Bill to', MARGIN, y);
    doc.font(FONT);
    customerLines.forEach((line, i) => doc.text(line, MARGIN, y + 12 + i * 11, { width: 280, lineBreak: false, ellipsis: true }));
    facts.forEach(([label, value], i) => {
      doc.font(i === facts.length - 1 ? BOLD : FONT);
      doc.text(label, MARGIN + 300, y + i * 12, { width: 90, lineBreak: false });
      doc.text(value, MARGIN + 390, y + i * 12, { width: TABLE_WIDTH - 390, align: 'right', lineBreak: false });
    });

    // The ledger lines.
    tableHeader(pager.y);
    pager.y += ROW;
    row(pager.y, { date: s.from, type: '', reference: '', description: 'Opening balance', debit: '', credit: '', balance: money(s.opening_balance) });
    pager.y += ROW;
    let i = 0;
    for await (const line of reading.lines) {
      // pdfkit is synchronous: a long statement yields to the event loop now and then so that
      // other requests on this instance keep flowing; a client that went away stops the work.
      if (++i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      if (doc.destroyed) return;
      if (i % LAYOUT_CACHE_LINES === 0) forgetLayouts(doc);
      pager.room(ROW, true);
      row(pager.y, {
        date: line.date,
        type: TYPE_LABELS[line.type] ?? line.type,
        reference: line.reference ?? '',
        description: line.description,
        debit: line.debit ? money(line.debit) : '',
        credit: line.credit ? money(line.credit) : '',
        balance: money(line.balance),
      });
      pager.y += ROW;
    }
    pager.room(2 + ROW, true);
    doc.moveTo(MARGIN, pager.y).lineTo(MARGIN + TABLE_WIDTH, pager.y).lineWidth(0.5).stroke();
    pager.y += 2;
    doc.font(BOLD);
    row(pager.y, { date: s.to, type: '', reference: '', description: 'Totals / closing balance', debit: money(s.total_debits), credit: money(s.total_credits), balance: money(s.closing_balance) });
    pager.y += ROW;

    // What was owed as of `to`: aging, the unapplied credit, and their difference (the closing balance).
    if (!pager.room(AGING_HEIGHT, false)) pager.y += 14;
    doc.font(BOLD).fontSize(10).text(`Aging as of ${s.to}`, MARGIN, pager.y);
    pager.y += 16;
    doc.fontSize(SIZE);
    const agingWidth = TABLE_WIDTH / (AGING_BUCKETS.length + 1);
    const agingRow = (cells: string[], font: string) => {
      doc.font(font);
      cells.forEach((cell, k) => doc.text(cell, MARGIN + k * agingWidth, pager.y, { width: agingWidth - 4, align: 'right', lineBreak: false }));
      pager.y += ROW;
    };
    const open = figure(AGING_BUCKETS.reduce((sum, b) => sum + toBigInt(s.aging[b.key]), 0n));
    agingRow([...AGING_BUCKETS.map((b) => AGING_LABELS[b.key]), 'Total open'], BOLD);
    agingRow([...AGING_BUCKETS.map((b) => money(s.aging[b.key])), money(open)], FONT);
    const label = (text: string) => [...AGING_BUCKETS.slice(1).map(() => ''), text];
    agingRow([...label('Unapplied credit'), money(-s.unapplied_credit)], FONT);
    agingRow([...label('Balance'), money(s.closing_balance)], BOLD);
    doc.end();
  }
}

function forgetLayouts(doc: PDFKit.PDFDocument): void {
  const fonts = (doc as unknown as { _fontFamilies: Record<string, { layoutCache?: object }> })._fontFamilies;
  for (const font of Object.values(fonts)) if (font.layoutCache) font.layoutCache = Object.create(null) as object;
}

/** The page count of a statement of `lines` lines: the renderer's own pagination, without drawing. */
export function countPages(tableTop: number, bottom: number, lines: number): number {
  const pager = new Pager(tableTop + 2 * ROW, bottom); // the table header and the opening row
  for (let i = 0; i < lines; i++) {
    pager.room(ROW, true);
    pager.y += ROW;
  }
  pager.room(2 + ROW, true);
  pager.y += 2 + ROW;
  pager.room(AGING_HEIGHT, false);
  return pager.page;
}

function addressLines(a: StatementSummary['customer']['billing_address']): string[] {
  if (!a) return [];
  const cityLine = [a.postal_code, a.city, a.region].filter(Boolean).join(' ');
  return [a.line1, a.line2, cityLine, a.country].filter((l): l is string => !!l);
}
