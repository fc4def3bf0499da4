import { BankFileFormat, BankFileItem } from './bank-entry';

/** The file as it arrives: chunks of bytes. */
export type BankFileSource = AsyncIterable<Buffer | Uint8Array | string>;

/**
 * Reads a bank file of a format as a stream of items, one per entry, in file order (a port: the
 * infrastructure's streaming parsers implement it). Throws BankFileRejectedError for a file that
 * is not well formed or not of the format.
 */
export abstract class BankFileReader {
  abstract read(format: BankFileFormat, source: BankFileSource): AsyncGenerator<BankFileItem>;
}
