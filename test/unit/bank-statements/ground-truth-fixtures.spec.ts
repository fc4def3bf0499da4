import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BANK_FORMATS, generateGroundTruth } from '../../support/bank-ground-truth';

const DIR = join(__dirname, '../../fixtures/bank-files/ground-truth');
const EXTENSION: Record<string, string> = { 'camt.053': 'xml', 'camt.054': 'xml', bai2: 'bai', mt940: 'sta', csv: 'csv' };

/**
 * The ground-truth bank files (test/support/bank-ground-truth.ts) are kept in
 * test/fixtures/bank-files/ground-truth/ for people to read: each file and its truth (.json) must
 * be what the generator makes from its fixed seed. `UPDATE_GROUND_TRUTH=1 npx jest ground-truth-fixtures`
 * rewrites them after a change to the generator.
 */
describe('ground-truth bank files', () => {
  it.each(BANK_FORMATS)('%s: the committed file and truth are the generator’s output', (format) => {
    const c = generateGroundTruth(format);
    const base = join(DIR, `${format.replace('.', '')}-ground-truth`);
    const truth = `${JSON.stringify({ format: c.format, currency: c.currency, skipped: c.skipped, customers: c.customers, invoices: c.invoices, entries: c.entries }, null, 1)}\n`;
    if (process.env.UPDATE_GROUND_TRUTH === '1') {
      if (!existsSync(DIR)) mkdirSync(DIR, { recursive: true });
      writeFileSync(`${base}.${EXTENSION[format]}`, c.file);
      writeFileSync(`${base}.truth.json`, truth);
    }
    expect(readFileSync(`${base}.${EXTENSION[format]}`, 'utf8')).toBe(c.file);
    expect(readFileSync(`${base}.truth.json`, 'utf8')).toBe(truth);
    // Deterministic: a second run makes the same bytes.
    expect(generateGroundTruth(format).file).toBe(c.file);
  });

  it('has, per format, at least 50 matchable entries and 15 that are not, each with its own bank entry id', () => {
    for (const format of BANK_FORMATS) {
      const c = generateGroundTruth(format);
      expect(c.entries.filter((e) => e.matchable).length).toBeGreaterThanOrEqual(50);
      expect(c.entries.filter((e) => !e.matchable).length).toBeGreaterThanOrEqual(15);
      expect(new Set(c.entries.map((e) => e.bank_entry_id)).size).toBe(c.entries.length);
    }
  });
});
