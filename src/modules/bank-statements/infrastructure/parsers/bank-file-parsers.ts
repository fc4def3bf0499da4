import { BankFileFormat, BankFileItem } from '../../domain/bank-entry';
import { parseBai2 } from './bai2.parser';
import { camtParser } from './camt.parser';
import { parseCsv } from './csv.parser';
import { parseMt940 } from './mt940.parser';
import { BankFileSource } from './text-lines';

export type BankFileParser = (source: BankFileSource) => AsyncGenerator<BankFileItem>;

/** One streaming parser per format of §14. */
export const BANK_FILE_PARSERS: Record<BankFileFormat, BankFileParser> = {
  'camt.053': camtParser('053'),
  'camt.054': camtParser('054'),
  bai2: parseBai2,
  mt940: parseMt940,
  csv: parseCsv,
};
