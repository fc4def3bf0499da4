import { decimalToMinor, integerToMinor, yymmddDate } from '../../../src/modules/bank-statements/domain/bank-amount';
import { textLines } from '../../../src/modules/bank-statements/infrastructure/parsers/text-lines';
import { chunked } from './parse-support';

describe('bank amounts', () => {
  it.each([
    ['1250.50', 'usd', '.', 125_050],
    ['1250.5', 'eur', '.', 125_050],
    ['1250', 'eur', '.', 125_000],
    ['12.340', 'usd', '.', 1_234],
    ['1250,5', 'eur', ',', 125_050],
    ['1250,', 'eur', ',', 125_000],
    ['15000', 'jpy', '.', 15_000],
    ['1.500', 'kwd', '.', 1_500],
    [' 7 ', 'usd', '.', 700],
    ['10000000000.00', 'usd', '.', 1_000_000_000_000],
    // either side of the whole digits computed as a number (up to 12) or a BigInt (13 to 15)
    ['999999999.999', 'kwd', '.', 999_999_999_999],
    ['000000000001250.50', 'usd', '.', 125_050],
    ['1000000000000', 'jpy', '.', 1_000_000_000_000],
    ['0.01', 'usd', '.', 1],
  ])('%s %s (separator %s) is %d minor units, exactly', (text, currency, separator, minor) => {
    expect(decimalToMinor(text, currency, separator as '.' | ',')).toBe(minor);
  });

  it.each([
    ['12.345', 'usd', /more decimals than USD allows/],
    ['1.5', 'jpy', /more decimals than JPY allows/],
    ['0.00', 'usd', /greater than zero/],
    ['-1.00', 'usd', /not a decimal/],
    ['1e5', 'usd', /not a decimal/],
    ['1,250.00', 'usd', /not a decimal/],
    ['10000000000.01', 'usd', /exceeds/],
    ['1000000000001', 'jpy', /exceeds/],
    ['999999999999.99', 'usd', /exceeds/],
    ['999999999999999', 'usd', /exceeds/],
    ['', 'usd', /not a decimal/],
  ])('%s %s is a bad entry', (text, currency, message) => {
    expect(() => decimalToMinor(text, currency)).toThrow(message);
  });

  it('takes BAI2 amounts as minor units and YYMMDD dates as 20xx', () => {
    expect(integerToMinor('000450000')).toBe(450_000);
    expect(() => integerToMinor('12.00')).toThrow(/whole number/);
    expect(yymmddDate('261019')).toBe('2026-10-19');
    expect(() => yymmddDate('260230')).toThrow(/not a date/);
  });
});

describe('text lines', () => {
  it('splits LF, CRLF and CR lines across any chunking, a CR LF split between chunks included', async () => {
    const text = 'a\r\nbb\nccc\rdddd\r\n\r\nlast';
    for (const size of [1, 2, 3, 100]) {
      const lines: string[] = [];
      for await (const line of textLines(chunked(text, size))) lines.push(`${line.number}:${line.text}`);
      expect(lines).toEqual(['1:a', '2:bb', '3:ccc', '4:dddd', '5:', '6:last']);
    }
  });

  it('refuses a line longer than any record-based bank file has', async () => {
    const lines = textLines(chunked('x'.repeat(70_000), 8192));
    await expect(lines.next()).rejects.toThrow(/longer than 65536 bytes/);
  });
});
