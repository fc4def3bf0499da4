import { TextDecoder } from 'node:util';
import { BankFileRejectedError } from '../../domain/bank-entry';

import { BankFileSource } from '../../domain/bank-file-reader';

export type { BankFileSource };

/** No line of a record-based bank file (BAI2, MT940) is anywhere near this long. */
export const MAX_LINE_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text of one line: UTF-8 when it is valid UTF-8, else Latin-1 — many banks still write MT940
 * and BAI2 in ISO 8859-1, and a line is the unit a bank writes in one encoding.
 */
function decodeLine(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/**
 * Splits a byte stream into lines (LF, CRLF or CR) without ever holding more than one chunk and
 * one line, with the 1-based line number. A line longer than MAX_LINE_BYTES means the file is
 * not a record-based bank file at all.
 */
export async function* textLines(source: BankFileSource): AsyncGenerator<{ text: string; number: number }> {
  let pending: Buffer = Buffer.alloc(0);
  let number = 0;
  let first = true;
  // a CR ended the previous chunk: an LF starting this one belongs to it
  let afterCr = false;
  for await (const chunk of source) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    if (afterCr && pending.length === 0 && data[0] === 0x0a) start = 1;
    afterCr = false;
    if (pending.length > 0) data = Buffer.concat([pending, data]);
    for (let i = start; i < data.length; i++) {
      const byte = data[i];
      if (byte !== 0x0a && byte !== 0x0d) continue;
      let line = data.subarray(start, i);
      if (byte === 0x0d) {
        if (i + 1 === data.length) afterCr = true;
        else if (data[i + 1] === 0x0a) i++;
      }
      start = i + 1;
      if (first) line = stripBom(line);
      first = false;
      number++;
      yield { text: decodeLine(line), number };
    }
    pending = Buffer.from(data.subarray(start));
    if (pending.length > MAX_LINE_BYTES) throw new BankFileRejectedError(`line ${number + 1} is longer than ${MAX_LINE_BYTES} bytes: not a bank file of this format`);
  }
  if (pending.length > 0) {
    number++;
    yield { text: decodeLine(first ? stripBom(pending) : pending), number };
  }
}

function stripBom(line: Buffer): Buffer {
  return line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? line.subarray(3) : line;
}
