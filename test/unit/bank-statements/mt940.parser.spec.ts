import { parseMt940Details } from '../../../src/modules/bank-statements/infrastructure/parsers/mt940-details';
import { credits, fixture, parseAll, rejection, summary } from './parse-support';

describe('MT940 parser', () => {
  it('reads messages in the SWIFT envelope, two statements, whatever the chunking', async () => {
    for (const chunk of [1, 3, 4096]) {
      const items = await parseAll('mt940', fixture('mt940-swift-envelope.sta'), chunk);
      expect(summary(items)).toEqual([
        [1, 'credit'],
        [2, 'credit'],
        [3, 'skipped', 'debit'],
        [4, 'skipped', 'reversal'],
        [5, 'credit'],
        [6, 'error', 'invalid_amount'],
      ]);
    }
  });

  it('maps :61: and a multi-line structured :86: (/REMI/, /NAME/, /IBAN/, /BIC/)', async () => {
    const [first, second, third] = credits(await parseAll('mt940', fixture('mt940-swift-envelope.sta')));
    expect(first).toEqual({
      position: 1,
      account: 'NL91ABNA0417164300',
      bankEntryId: 'ABN8845310',
      amount: 150_000,
      currency: 'eur',
      bookingDate: '2026-10-20',
      payer: { name: 'JANSEN BOUW B.V.', account: 'NL46ABNA0499998748', bankId: 'ABNANL2A' },
      reference: 'Betaling factuur INV-000501 en INV-000502, zie specificatie',
      remittance: [],
    });
    expect(second).toMatchObject({ amount: 25_000, reference: 'INV-000503', payer: { name: 'DE VRIES HANDEL', account: 'NL02RABO0123456789' } });
    // unstructured :86: is the reference, all of it
    expect(third).toMatchObject({ position: 5, bankEntryId: 'ABN8845401', amount: 1_000, bookingDate: '2026-10-21', reference: 'Payment from a customer without structure, invoice INV-000504, with thanks' });
  });

  it('reads the German ?NN structure: SVWZ remittance across subfields, payer name, IBAN and BIC; entry date across the new year', async () => {
    const items = await parseAll('mt940', fixture('mt940-german-gvc.sta'), 11);
    expect(summary(items)).toEqual([[1, 'credit'], [2, 'credit'], [3, 'skipped', 'debit']]);
    const [first, second] = credits(items);
    expect(first).toEqual({
      position: 1,
      account: '37040044/0532013000',
      bankEntryId: '20261231-0001',
      amount: 238_000,
      currency: 'eur',
      bookingDate: '2027-01-02',
      payer: { name: 'Schröder & Partner GmbH', account: 'DE02120300000000202051', bankId: 'COBADEFFXXX' },
      reference: 'Rechnung INV-000601 und INV-000602 vom 1.12.2026',
      remittance: [],
    });
    expect(second).toMatchObject({ amount: 11_900, reference: 'Kundennummer 55102', payer: { name: 'Bäckerei Ölberg', account: 'DE44500105175407324931', bankId: null } });
  });

  it('reads a Latin-1 file (as German banks still send) line by line', async () => {
    const latin1 = Buffer.from(fixture('mt940-german-gvc.sta').toString('utf8'), 'latin1');
    const [first] = credits(await parseAll('mt940', latin1, 2));
    expect(first.payer.name).toBe('Schröder & Partner GmbH');
  });

  it('takes the header lines some banks write before the first :20:', async () => {
    const file = `ABNANL2A\r\n940\r\nABNANL2A\r\n${fixture('mt940-german-gvc.sta').toString()}`;
    expect(credits(await parseAll('mt940', file))).toHaveLength(2);
  });

  it.each([
    ['a statement cut short (no :62F:)', (f: string) => f.slice(0, f.lastIndexOf(':62F:')), /incomplete/],
    ['a :61: before the account', (f: string) => f.replace(/:25:[^\n]*\n/, ''), /before the statement's account/],
    ['a new :20: inside a statement', (f: string) => f.replace(':62F:C270102EUR7499,00\n', ''), /starts before the previous one closed/],
    ['a bad opening balance', (f: string) => f.replace(':60F:C261230EUR5000,00', ':60F:5000'), /opening balance/],
    ['a camt.053 file', () => fixture('camt053-v02-two-statements.xml').toString(), /not an MT940 field|no MT940 statement/],
    ['a BAI2 file', () => fixture('bai2-lockbox.bai').toString(), /not an MT940 field/],
    ['an empty body', () => '', /no MT940 statement/],
  ])('rejects %s as a whole', async (_name, mutate, message) => {
    expect(await rejection('mt940', mutate(fixture('mt940-german-gvc.sta').toString('utf8')))).toMatch(message);
  });

  it('reads :86: structures as the banks write them', () => {
    // Rabobank: counterparty account/BIC/name/city
    expect(parseMt940Details(['/EREF/0203040506070809//CNTP/NL12RABO0123456789/RABONL2U/Dijkstra Installatie/Utrecht/', '/REMI/USTD//INV-000801/'])).toEqual({
      reference: 'INV-000801',
      payer: { name: 'Dijkstra Installatie', account: 'NL12RABO0123456789', bankId: 'RABONL2U' },
    });
    // ING: ordering party block, beneficiary block ignored
    expect(parseMt940Details(['/EREF/E2E-99//ORDP//NAME/Kramer Logistics/ADDR/Amsterdam/BENM//NAME/Our Company/REMI/STRD/CUR/1234567890123456/'])).toEqual({
      reference: '1234567890123456',
      payer: { name: 'Kramer Logistics', account: null, bankId: null },
    });
    // a /CODE/ structure without /REMI/: all of it
    expect(parseMt940Details(['/TRTP/SEPA OVERBOEKING/NAME/X/']).reference).toBe('/TRTP/SEPA OVERBOEKING/NAME/X/');
    // a line that fills the 65 columns was cut mid-word: joined without a space
    const full = '/TRTP/SEPA OVERBOEKING/NAME/PIETERS/REMI/Factuurnummer:  INV-0008';
    expect(full).toHaveLength(65);
    expect(parseMt940Details([full, '03 betaald']).reference).toBe('Factuurnummer: INV-000803 betaald');
    // Polish banks write > for ?
    expect(parseMt940Details(['020>00PRZELEW>20FV INV-000802>32JAN KOWALSKI']).reference).toBe('FV INV-000802');
  });
});
