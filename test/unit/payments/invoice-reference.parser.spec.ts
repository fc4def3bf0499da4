import {
  candidateMatches,
  invoiceNumberKeys,
  parseInvoiceReferences,
  resolveReferenceCandidates,
} from '../../../src/modules/payments/domain/matching/invoice-reference.parser';

/** A tenant's invoice numbers: the default INV-000001 style plus a few custom schemes. */
const TENANT_NUMBERS = [
  'INV-000001', 'INV-000007', 'INV-000008', 'INV-000042', 'INV-000123', 'INV-000124', 'INV-000125',
  'INV-004521', 'INV-000500', 'INV-002024', 'A1001', '2024-0042', 'INV-2024-0099', 'CN-000777', '88001',
];
const invoices = TENANT_NUMBERS.map((number) => ({ id: `id:${number}`, number }));

function matched(reference: string): string[] {
  const { invoices: found } = resolveReferenceCandidates(parseInvoiceReferences(reference), invoices);
  return found.map((i) => i.number).sort();
}

describe('invoice reference parser', () => {
  // [reference as written by a payer or a bank, invoice numbers it names]
  const table: [string, string[]][] = [
    ['INV-000123', ['INV-000123']],
    ['inv-000123', ['INV-000123']],
    ['INV000123', ['INV-000123']],
    ['inv 123', ['INV-000123']],
    ['Inv. 123', ['INV-000123']],
    ['INV-123', ['INV-000123']],
    ['#123', ['INV-000123']],
    ['# 123', ['INV-000123']],
    ['Invoice 123', ['INV-000123']],
    ['Invoice No. 123', ['INV-000123']],
    ['invoice number 123', ['INV-000123']],
    ['Invoice #123 thank you', ['INV-000123']],
    ['Payment for invoice: 000123', ['INV-000123']],
    ['INV-000123 INV-000124', ['INV-000123', 'INV-000124']],
    ['INV-000123,INV-000124', ['INV-000123', 'INV-000124']],
    ['INV 123, 124 & 125', ['INV-000123', 'INV-000124', 'INV-000125']],
    ['invoices 123, 124 and 125', ['INV-000123', 'INV-000124', 'INV-000125']],
    ['#123/124', ['INV-000123', 'INV-000124']],
    ['#123 #124', ['INV-000123', 'INV-000124']],
    ['INV-000123/124', ['INV-000123', 'INV-000124']],
    ['inv 7 + 8', ['INV-000007', 'INV-000008']],
    ['ACME CORP PMT INV000123 REF 99812', ['INV-000123']],
    ['ACH CREDIT ACME LTD INV-000042 INV-000123 TRN*1*0000123456', ['INV-000042', 'INV-000123']],
    ['Payment 500.00 for INV-42', ['INV-000042']],
    ['paid 1,250.00 re invoice 42 on 2024-05-01', ['INV-000042']],
    ['Remit: A1001', ['A1001']],
    ['a1001', ['A1001']],
    ['Rechnung 2024-0042', ['2024-0042']],
    ['INV-2024-0099', ['INV-2024-0099']],
    ['Ref 88001', ['88001']],
    ['(INV-000001)', ['INV-000001']],
    ['inv#1', ['INV-000001']],
    ['CN-000777', ['CN-000777']],
  ];

  it.each(table)('%p names %p', (reference, expected) => {
    expect(matched(reference)).toEqual([...expected].sort());
  });

  // Numbers that are not invoice numbers, or that no invoice of the tenant has.
  const none: string[] = [
    '',
    'Thank you',
    'check #4521',
    'Chk 4521',
    'CHK4521',
    'PO #123',
    'PO-123',
    'payment 500',
    '500.00',
    'Amount 123.00',
    'wire ref 123',
    '2024-05-01',
    'INV-999999',
    '#999',
    'invoice 31337',
    'CN-123',
    'INV-777',
  ];

  it.each(none)('%p names no invoice', (reference) => {
    expect(matched(reference)).toEqual([]);
  });

  it('does not take part of a longer number for a number of its own', () => {
    // INV-002024 exists, but `2024` here is the year inside INV-2024-0099.
    expect(matched('INV-2024-0099')).toEqual(['INV-2024-0099']);
  });

  it('reports a number that fits two invoices equally as ambiguous, and names neither', () => {
    const twins = [
      { id: 'a', number: 'INV-000123' },
      { id: 'b', number: 'CN-000123' },
    ];
    const res = resolveReferenceCandidates(parseInvoiceReferences('#123'), twins);
    expect(res.invoices).toEqual([]);
    expect(res.ambiguous).toEqual([{ text: '123', invoices: twins }]);
  });

  it('prefers an exact match over a numeric one', () => {
    const both = [
      { id: 'a', number: '123' },
      { id: 'b', number: 'INV-000123' },
    ];
    expect(resolveReferenceCandidates(parseInvoiceReferences('#123'), both).invoices.map((i) => i.id)).toEqual(['a']);
    expect(resolveReferenceCandidates(parseInvoiceReferences('INV-000123'), both).invoices.map((i) => i.id).sort()).toEqual(['b']);
  });

  it('keys invoice numbers by alphanumerics and by their numeric tail', () => {
    expect(invoiceNumberKeys('INV-000123')).toEqual({ exactKey: 'inv000123', numeric: { prefix: 'inv', digits: '123' } });
    expect(invoiceNumberKeys('2024-0042')).toEqual({ exactKey: '20240042', numeric: null });
    expect(invoiceNumberKeys('000')).toEqual({ exactKey: '000', numeric: { prefix: '', digits: '0' } });
    expect(candidateMatches({ text: '#7', exactKey: '7', digits: '7', prefix: null }, invoiceNumberKeys('INV-000007'))).toBe('numeric');
    expect(candidateMatches({ text: 'CN-7', exactKey: 'cn7', digits: '7', prefix: 'cn' }, invoiceNumberKeys('INV-000007'))).toBeNull();
  });

  it('reads only the first 1000 characters of a reference', () => {
    const long = `${'x '.repeat(600)}INV-000123`;
    expect(matched(long)).toEqual([]);
  });
});
