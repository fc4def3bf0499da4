import { credits, fixture, parseAll, rejection, summary } from './parse-support';

describe('BAI2 parser', () => {
  it('reads a lockbox file as the bank wrote it (16 + 88 records, funds types S, 0, Z), whatever the chunking', async () => {
    for (const chunk of [1, 5, 4096]) {
      const items = await parseAll('bai2', fixture('bai2-lockbox.bai'), chunk);
      expect(summary(items)).toEqual([
        [1, 'credit'],
        [2, 'credit'],
        [3, 'credit'],
        [4, 'skipped', 'deposit_total'],
        [5, 'credit'],
        [6, 'credit'],
        [7, 'credit'],
        [8, 'credit'],
        [9, 'credit'],
        [10, 'skipped', 'debit'],
        [11, 'error', 'invalid_amount'],
      ]);
    }
  });

  it("follows the standard's sample: fields continued in 88 records, text continued in 88 records joined by a space", async () => {
    const [first, second, third] = credits(await parseAll('bai2', fixture('bai2-lockbox.bai')));
    expect(first).toEqual({
      position: 1,
      account: '0123456789',
      bankEntryId: null,
      amount: 450_000,
      currency: 'usd',
      bookingDate: '2026-10-19',
      payer: { name: null, account: null, bankId: null },
      reference: null,
      remittance: [],
      method: 'check',
    });
    // 16,115,10000000,S,5000000,4000000,1000000/ then 88,AX13612,B096132,AMALGAMATED CORP. LOCKBOX then 88,DEPOSIT-MISC. RECEIVABLES
    expect(second).toMatchObject({ position: 2, bankEntryId: 'AX13612', amount: 10_000_000, reference: 'AMALGAMATED CORP. LOCKBOX DEPOSIT-MISC. RECEIVABLES' });
    // the account's currency is blank: the group's (USD)
    expect(third).toMatchObject({ position: 3, account: '9876543210', currency: 'usd', amount: 500_000, reference: 'LOCK BOX NO.68751' });
  });

  it('takes lockbox items (116) instead of their deposit (115), dated by the group as-of date', async () => {
    const items = credits(await parseAll('bai2', fixture('bai2-lockbox.bai'))).filter((c) => c.account === '4589761203');
    expect(items.map((c) => [c.position, c.bankEntryId, c.amount, c.bookingDate, c.reference])).toEqual([
      [5, 'LBX-20261019-01-1', 500_000, '2026-10-19', 'REMITTER: HARBOR FREIGHT LLC INV 000401 INV 000402'],
      [6, 'LBX-20261019-01-2', 455_000, '2026-10-19', 'REMITTER: GREENLEAF MARKETS INV-000403'],
      [7, 'LBX-20261019-01-3', 250_000, '2026-10-19', 'NO REMITTANCE DOCUMENT'],
      [8, 'ACH-55512', 98_765, '2026-10-19', expect.stringContaining('ORIG CO NAME:PINE VALLEY HEALTH ORIG ID:1234567890')],
      [9, 'FW-20261019-9981', 2_500_000, '2026-10-19', 'B/O: ATLAS MINING CORP. OBI: INVOICE 000405'],
    ]);
  });

  it("reads the payer's name where the bank labels it (ACH originator, wire ordering party)", async () => {
    const byId = new Map(credits(await parseAll('bai2', fixture('bai2-lockbox.bai'))).map((c) => [c.bankEntryId, c.payer.name]));
    expect(byId.get('ACH-55512')).toBe('PINE VALLEY HEALTH');
    expect(byId.get('FW-20261019-9981')).toBe('ATLAS MINING CORP.');
    expect(byId.get('LBX-20261019-01-3')).toBeNull();
    const methods = new Map(credits(await parseAll('bai2', fixture('bai2-lockbox.bai'))).map((c) => [c.bankEntryId, c.method]));
    expect([methods.get('LBX-20261019-01-1'), methods.get('ACH-55512'), methods.get('FW-20261019-9981')]).toEqual(['check', 'ach', 'wire']);
  });

  it('keeps a 115 deposit when its account lists no items, and reads V and D funds types', async () => {
    const file = [
      '01,BANK,CUST,261020,0200,FILE1,,,2/',
      '02,CUST,BANK,1,261019,,USD,2/',
      '03,555,,010,100,,/',
      '16,115,1000,V,261020,0800,REF-V,CR1,DEPOSIT/',
      '16,165,2000,D,2,0,1500,1,500,REF-D,,PREAUTHORIZED ACH CREDIT/',
      '49,3100,4/',
      '98,3100,1,6/',
      '99,3100,1,8/',
    ].join('\r\n');
    const items = await parseAll('bai2', file);
    expect(credits(items).map((c) => [c.position, c.bankEntryId, c.amount, c.reference])).toEqual([
      [2, 'REF-D', 2000, 'PREAUTHORIZED ACH CREDIT'],
      [1, 'REF-V', 1000, 'DEPOSIT'],
    ]);
  });

  it('skips the credits of a test-only (status 4) group', async () => {
    const file = ['01,B,C,261020,0200,1,,,2/', '02,C,B,4,261019,,USD,2/', '03,555,,/', '16,195,1000,0,W1,,TEST WIRE/', '49,1000,3/', '98,1000,1,5/', '99,1000,1,7/'].join('\n');
    expect(summary(await parseAll('bai2', file))).toEqual([[1, 'skipped', 'not_booked']]);
  });

  it.each([
    ['a file cut short (no 99)', (f: string) => f.slice(0, f.lastIndexOf('99,')), /no file trailer/],
    ['a missing account trailer', (f: string) => f.replace('49,4000000,5/\n', ''), /inside an account|before its account trailer/],
    ['a record after the trailer', (f: string) => `${f}16,195,100,0,X,,Y/\n`, /after the file trailer/],
    ['no file header', (f: string) => f.slice(f.indexOf('02,')), /starts with a file header/],
    ['a bad as-of date', (f: string) => f.replace('02,031001234,122099999,1,261019', '02,031001234,122099999,1,261319'), /as-of date/],
    ['BAI version 1', (f: string) => f.replace('0200,1,80,,2/', '0200,1,80,,1/'), /version 1/],
    ['a CSV file', () => 'date,amount,currency\n2026-01-01,1.00,USD\n', /not a BAI2 record/],
    ['an MT940 file', () => fixture('mt940-german-gvc.sta').toString(), /not a BAI2 record/],
    ['an empty body', () => '', /empty file/],
  ])('rejects %s as a whole', async (_name, mutate, message) => {
    expect(await rejection('bai2', mutate(fixture('bai2-lockbox.bai').toString('utf8')))).toMatch(message);
  });
});
