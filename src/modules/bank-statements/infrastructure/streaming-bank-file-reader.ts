import { Injectable } from '@nestjs/common';
import { BankFileFormat, BankFileItem } from '../domain/bank-entry';
import { BankFileReader, BankFileSource } from '../domain/bank-file-reader';
import { BANK_FILE_PARSERS } from './parsers/bank-file-parsers';

/** The streaming parsers of ./parsers behind the BankFileReader port. */
@Injectable()
export class StreamingBankFileReader extends BankFileReader {
  read(format: BankFileFormat, source: BankFileSource): AsyncGenerator<BankFileItem> {
    return BANK_FILE_PARSERS[format](source);
  }
}
