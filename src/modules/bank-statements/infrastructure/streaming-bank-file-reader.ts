import { Injectable } from '@nestjs/common';
import { BankFileFormat, BankFileItem } from '../domain/bank-entry';
import { BankFileReader, BankFileSource } from '../domain/bank-file-reader';
import { BANK_FILE_PARSERS } from './parsers/bank-file-parsers';
import { holdLeanHeap } from '../../../shared/infrastructure/lean-heap';

/** The streaming parsers of ./parsers behind the BankFileReader port. */
@Injectable()
export class StreamingBankFileReader extends BankFileReader {
  /** With the lean heap held while the file is read (a large file's staging allocates fast). */
  async *read(format: BankFileFormat, source: BankFileSource): AsyncGenerator<BankFileItem> {
    const release = holdLeanHeap();
    try {
      yield* BANK_FILE_PARSERS[format](source);
    } finally {
      release();
    }
  }
}
