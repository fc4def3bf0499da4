import { credits, fixture, parseAll, rejection, summary } from './parse-support';

describe('CSV parser', () => {
  it('reads the CSV of §14 (BOM, quoted fields, negative debits), whatever the chunking', async () => {
    for (const chunk of [1, 9, 4096]) {
      const items = await parseAll('csv', fixture('statement.csv'), chunk);
      expect(summary(items)).toEqual([
        [1, 'credit'],
        [2, 'skipped', 'debit'],
        [3, 'credit'],
        [4, 'error', 'invalid_amount'],
        [5, 'credit'],
        [6, 'error', 'invalid_date'],
      ]);
    }
    const [first, second, third] = credits(await parseAll('csv', fixture('statement.csv')));
    expect(first).toEqual({
      position: 1,
      account: '',
      bankEntryId: 'TX-0001',
      amount: 125_050,
      currency: 'eur',
      bookingDate: '2026-11-04',
      payer: { name: 'ACME Corp.', account: 'DE89370400440532013000', bankId: null },
      reference: 'Invoice INV-000701, thanks',
      remittance: [],
    });
    expect(second).toMatchObject({ amount: 30_000, reference: null, payer: { name: 'Smith, Jones & Co', account: null } });
    expect(third).toMatchObject({ bankEntryId: null, payer: { name: 'Lee "Quoted" Ltd', account: 'GB29NWBK60161331926819' } });
  });

  it('takes the columns by name, in any order, ignoring extra ones; JPY has no decimals', async () => {
    const csv = 'bank_entry_id,currency,amount,date,note\nA1,JPY,15000,2026-11-04,x\nA2,jpy,15000.5,2026-11-04,y\n';
    const items = await parseAll('csv', csv);
    expect(credits(items)).toEqual([expect.objectContaining({ bankEntryId: 'A1', amount: 15_000, currency: 'jpy' })]);
    expect(summary(items)[1]).toEqual([2, 'error', 'invalid_amount']);
  });

  it('reports a row with the wrong number of fields and an amount over 10^12 minor units as bad entries', async () => {
    const csv = 'date,amount,currency\n2026-11-04,1.00,USD,extra\n2026-11-04,10000000000.01,USD\n2026-11-04,2.00,USD\n';
    expect(summary(await parseAll('csv', csv))).toEqual([[1, 'error', 'invalid_entry'], [2, 'error', 'amount_too_large'], [3, 'credit']]);
  });

  it.each([
    ['a header without the required columns', 'when,how much\n2026-01-01,1\n', /missing: date, amount, currency/],
    ['an unclosed quote', 'date,amount,currency,reference\n2026-11-04,1.00,USD,"never closed\n', /not a well-formed CSV/],
    ['a camt.053 file', fixture('camt053-v02-two-statements.xml').toString(), /not a well-formed CSV|missing/],
    ['an empty body', '', /no CSV header/],
  ])('rejects %s as a whole', async (_name, body, message) => {
    expect(await rejection('csv', body)).toMatch(message);
  });
});
