import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BankCredit, BankFileFormat, BankFileItem } from '../../../src/modules/bank-statements/domain/bank-entry';
import { BANK_FILE_PARSERS } from '../../../src/modules/bank-statements/infrastructure/parsers/bank-file-parsers';

export const FIXTURES = join(__dirname, '../../fixtures/bank-files');

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

/** The file as a stream of small chunks, as a socket delivers it: every parser must cope with any split. */
export async function* chunked(data: Buffer | string, size = 7): AsyncGenerator<Buffer> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

export async function parseAll(format: BankFileFormat, data: Buffer | string, chunkSize?: number): Promise<BankFileItem[]> {
  const items: BankFileItem[] = [];
  for await (const item of BANK_FILE_PARSERS[format](chunked(data, chunkSize))) items.push(item);
  return items;
}

export const credits = (items: BankFileItem[]): BankCredit[] => items.flatMap((i) => (i.kind === 'credit' ? [i.entry] : []));

/** Items by position with what matters for counting: kind and reason/code. */
export const summary = (items: BankFileItem[]) =>
  [...items]
    .sort((a, b) => pos(a) - pos(b))
    .map((i) => (i.kind === 'credit' ? [pos(i), 'credit'] : i.kind === 'skipped' ? [pos(i), 'skipped', i.reason] : [pos(i), 'error', i.code]));

const pos = (i: BankFileItem) => (i.kind === 'credit' ? i.entry.position : i.position);

export async function rejection(format: BankFileFormat, data: Buffer | string): Promise<string> {
  try {
    await parseAll(format, data, 1024);
  } catch (error) {
    if ((error as Error).name === 'BankFileRejectedError') return (error as Error).message;
    throw error;
  }
  throw new Error('the file was accepted');
}
