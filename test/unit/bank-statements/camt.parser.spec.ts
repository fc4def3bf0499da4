import { BANK_FILE_PARSERS } from '../../../src/modules/bank-statements/infrastructure/parsers/bank-file-parsers';
import { credits, fixture, parseAll, rejection, summary } from './parse-support';

describe('camt.053 parser', () => {
  it('reads a camt.053.001.02 file of two statements as the bank wrote it, whatever the chunking', async () => {
    const data = fixture('camt053-v02-two-statements.xml');
    for (const chunk of [1, 7, 64, 65536]) {
      const items = await parseAll('camt.053', data, chunk);
      expect(summary(items)).toEqual([
        [1, 'credit'],
        [2, 'credit'],
        [3, 'credit'],
        [4, 'credit'],
        [5, 'credit'],
        [6, 'skipped', 'debit'],
        [7, 'skipped', 'reversal'],
        [8, 'credit'],
        [9, 'error', 'invalid_amount'],
        [10, 'skipped', 'not_booked'],
      ]);
    }
  });

  it('maps an entry with structured remittance as §14 says', async () => {
    const [first] = credits(await parseAll('camt.053', fixture('camt053-v02-two-statements.xml')));
    expect(first).toEqual({
      position: 1,
      account: 'SE1580000123412345678',
      bankEntryId: 'AAAASESS-FP-CN98765',
      amount: 1_250_000,
      currency: 'sek',
      bookingDate: '2026-10-20',
      payer: { name: 'Müller & Söhne GmbH', account: 'DE89370400440532013000', bankId: 'COBADEFFXXX' },
      reference: null,
      remittance: [
        { invoiceNumber: 'INV-000101', amount: 750_000 },
        { invoiceNumber: 'INV-000102', amount: 500_000 },
      ],
    });
  });

  it('splits a batch entry into one payment per transaction, each with its own payer, reference and id', async () => {
    const batch = credits(await parseAll('camt.053', fixture('camt053-v02-two-statements.xml'))).slice(1, 4);
    expect(batch.map((c) => [c.position, c.bankEntryId, c.amount, c.payer.name, c.payer.account, c.reference])).toEqual([
      [2, 'AAAASESS-FP-CN98766-01', 1_000_000, 'Fjällräven Outdoor AB', 'SE3550000000054910000003', 'Faktura INV-000110'],
      [3, 'AAAASESS-FP-CN98766-02', 1_500_000, 'Baltic Shipping Oy', '001234567890', 'Payment of invoices INV-000111 and INV-000112, thank you'],
      [4, 'AAAASESS-FP-CN98766-03', 500_000, 'Unknown Sender', null, null],
    ]);
  });

  it("takes each statement's own account, the additional information when there is no Ustrd, and the date of a DtTm as written", async () => {
    const all = credits(await parseAll('camt.053', fixture('camt053-v02-two-statements.xml')));
    expect(all[4]).toMatchObject({ position: 5, account: 'SE1580000123412345678', reference: 'GIRO CREDIT NO REMITTANCE', payer: { name: null, account: null, bankId: null } });
    expect(all[5]).toMatchObject({ position: 8, account: '5490-1234567', currency: 'eur', amount: 125_050, bookingDate: '2026-10-20', payer: { name: 'ACME Corp.' }, reference: 'INV-000120' });
  });

  it('reads camt.053.001.08 with a namespace prefix: Sts/Cd, Dbtr/Pty/Nm, BICFI, TxDtls/Amt', async () => {
    const items = await parseAll('camt.053', fixture('camt053-v08-prefixed.xml'), 13);
    expect(summary(items)).toEqual([[1, 'credit'], [2, 'credit'], [3, 'credit']]);
    const [single, first, second] = credits(items);
    expect(single).toEqual({
      position: 1,
      account: 'CH9300762011623852957',
      bankEntryId: '20261101001234560000001',
      amount: 320_000,
      currency: 'chf',
      bookingDate: '2026-11-01',
      payer: { name: 'Café Zürich Société Anonyme', account: 'CH5604835012345678009', bankId: 'CRESCHZZ80A' },
      reference: null,
      remittance: [{ invoiceNumber: 'INV-000205', amount: 320_000 }],
    });
    // no AcctSvcrRef anywhere: the entry's NtryRef numbered per transaction
    expect([first.bankEntryId, first.amount, first.payer.account, second.bankEntryId, second.amount, second.reference]).toEqual([
      'BATCH-0002/1', 20_000, 'CH4431999123000889012', 'BATCH-0002/2', 15_000, 'RE 000208',
    ]);
    // one RfrdDocAmt for two documents belongs to neither
    expect(first.remittance).toEqual([
      { invoiceNumber: 'INV-000206', amount: null },
      { invoiceNumber: 'INV-000207', amount: null },
    ]);
  });

  it('keeps a batch whose transactions do not add up to the entry as one payment', async () => {
    const xml = fixture('camt053-v08-prefixed.xml').toString('utf8').replace('<ns2:Amt Ccy="CHF">150.00</ns2:Amt>', '<ns2:Amt Ccy="CHF">140.00</ns2:Amt>');
    const batch = credits(await parseAll('camt.053', xml))[1];
    expect(batch).toMatchObject({ position: 2, bankEntryId: 'BATCH-0002', amount: 35_000, reference: 'RE 000208', payer: { name: null } });
    expect(batch.remittance.map((r) => r.invoiceNumber)).toEqual(['INV-000206', 'INV-000207']);
  });

  it('rejects a camt.054 posted as camt.053, and the reverse', async () => {
    expect(await rejection('camt.053', fixture('camt054-v04.xml'))).toMatch(/camt\.054, not a camt\.053/);
    expect(await rejection('camt.054', fixture('camt053-v02-two-statements.xml'))).toMatch(/camt\.053, not a camt\.054/);
  });

  it.each([
    ['a truncated file', (x: string) => x.slice(0, Math.floor(x.length * 0.6)), /not well-formed/],
    ['mismatched tags', (x: string) => x.replace('</BookgDt>', '</BkgDt>'), /not well-formed/],
    ['a DOCTYPE', (x: string) => x.replace('<Document', '<!DOCTYPE Document [<!ENTITY a "aaaa">]>\n<Document'), /DOCTYPE/],
    ['another namespace', (x: string) => x.replace('camt.053.001.02"', 'pain.001.001.03"'), /not an ISO 20022 camt/],
    ['no Document', () => '<?xml version="1.0"?><Statement><Entry/></Statement>', /no ISO 20022 Document/],
    ['not XML at all', () => '01,122099999,123456789,261020,0200,1,80,,2/\n', /not well-formed/],
    ['an empty body', () => '', /not well-formed|no ISO 20022 Document/],
    ['an entry before its account', (x: string) => x.replace(/<Acct>[\s\S]*?<\/Acct>/, ''), /before \(or without\) its account/],
    ['bytes that are not UTF-8', (x: string) => Buffer.concat([Buffer.from(x.slice(0, 500)), Buffer.from([0xff, 0xfe]), Buffer.from(x.slice(500))]), /not valid utf-8/],
  ])('rejects %s as a whole (nothing imported)', async (_name, mutate, message) => {
    const original = fixture('camt053-v02-two-statements.xml').toString('utf8');
    expect(await rejection('camt.053', mutate(original) as string)).toMatch(message);
  });

  it('reads a Latin-1 file that declares its encoding', async () => {
    const xml = fixture('camt053-v02-two-statements.xml').toString('utf8').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    const [first] = credits(await parseAll('camt.053', Buffer.from(xml, 'latin1')));
    expect(first.payer.name).toBe('Müller & Söhne GmbH');
  });

  it('reports an entry bigger than any bank writes as one bad entry and reads the others', async () => {
    const huge = `<Ntry>${'<AddtlNtryInf>x</AddtlNtryInf>'.repeat(6000)}</Ntry>`;
    const xml = fixture('camt053-v02-two-statements.xml').toString('utf8').replace('<Ntry>', `${huge}<Ntry>`);
    const items = await parseAll('camt.053', xml, 4096);
    expect(summary(items).slice(0, 2)).toEqual([[1, 'error', 'entry_too_large'], [2, 'credit']]);
    expect(items).toHaveLength(11);
  });

  it('streams: entries come out while the file is still arriving, one entry in memory at a time', async () => {
    const text = fixture('camt053-v08-prefixed.xml').toString('utf8');
    const entry = text.match(/<ns2:Ntry>[\s\S]*?<\/ns2:Ntry>/)![0];
    const ENTRIES = 2_000;
    let sent = 0;
    async function* body() {
      yield Buffer.from(text.split('<ns2:Ntry>')[0]);
      for (; sent < ENTRIES; sent++) yield Buffer.from(entry.replace('20261101001234560000001</ns2:AcctSvcrRef>\n<ns2:BkTx', `E${sent}</ns2:AcctSvcrRef>\n<ns2:BkTx`));
      yield Buffer.from('</ns2:Stmt></ns2:BkToCstmrStmt></ns2:Document>');
    }
    let count = 0;
    let sentAtFirst = -1;
    for await (const item of BANK_FILE_PARSERS['camt.053'](body())) {
      if (count++ === 0) sentAtFirst = sent;
      expect(item).toMatchObject({ kind: 'credit', entry: { position: count, bankEntryId: `E${count - 1}` } });
    }
    expect(count).toBe(ENTRIES);
    expect(sentAtFirst).toBeLessThan(5);
  });
});

describe('camt.054 parser', () => {
  it('reads notifications of two accounts: identity from the transaction when the entry has none', async () => {
    const items = await parseAll('camt.054', fixture('camt054-v04.xml'), 5);
    expect(summary(items)).toEqual([[1, 'credit'], [2, 'skipped', 'debit'], [3, 'credit']]);
    const [fp, bacs] = credits(items);
    expect(fp).toEqual({
      position: 1,
      account: 'GB33BUKB20201555555555',
      bankEntryId: 'FP-20261103-7781',
      amount: 84_520,
      currency: 'gbp',
      bookingDate: '2026-11-03',
      payer: { name: "O'BRIEN & SONS LIMITED", account: '40-47-8470872490', bankId: '404784' },
      reference: 'INV 000301 000302',
      remittance: [],
    });
    expect(bacs).toMatchObject({ account: 'GB94BARC10201530093459', bankEntryId: 'BACS-991-0003', amount: 6_000, payer: { name: 'Hilltop Farms' } });
  });
});
