import { CashMatchingPolicy } from '../../../src/modules/payments/domain/matching/cash-matching.policy';
import { normalizePayerAccount, normalizePayerName } from '../../../src/shared/domain/payer';
import { aPayment, anInvoice, InMemoryCandidates } from './match-candidate.mother';

const policy = new CashMatchingPolicy();

/** Customers as payer identification finds them: normalised names (own and aliases) and accounts. */
const customer = (id: string, name: string, extra: { accounts?: string[]; aliases?: string[]; currency?: string } = {}) => ({
  id,
  name,
  currency: extra.currency ?? 'usd',
  accounts: extra.accounts ?? [],
  names: [name, ...(extra.aliases ?? [])].map((n) => normalizePayerName(n)!),
});

describe('payer name normalisation (contract §14)', () => {
  it.each([
    ['ACME Corp.', 'acme'],
    ['Acme Corporation', 'acme'],
    ['acme, inc', 'acme'],
    ['MÜLLER & SÖHNE GmbH', 'muller sohne'],
    ['Müller und Söhne', 'muller und sohne'],
    ['  Café   Zürich  S.A.R.L ', 'cafe zurich s a r l'],
    ['Café Zürich SARL', 'cafe zurich'],
    ['Smith & Co. Ltd', 'smith'],
    ['Foo Pty. Ltd.', 'foo'],
    ['Company', 'company'],
    ['Co Ltd', 'co'],
    ['Łódź Trading', 'łodz trading'],
    ['O’Brien-Hughes PLC', 'o brien hughes'],
    ['Ｆｕｌｌ Width AG', 'full width'],
    ['Incorporated Holdings Inc', 'incorporated holdings'],
    ['   ', null],
    ['!!!', null],
  ])('%s → %s', (name, key) => {
    expect(normalizePayerName(name)).toBe(key);
  });

  it('compares accounts without spaces, upper case', () => {
    expect(normalizePayerAccount(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(normalizePayerAccount('  ')).toBeNull();
  });
});

describe('customer identification by payer (contract §14)', () => {
  const acme = customer('cus_acme', 'Acme Corp', { accounts: ['DE89370400440532013000'], aliases: ['ACME Holdings'] });
  const globex = customer('cus_globex', 'Globex GmbH', { accounts: ['GB29NWBK60161331926819'] });
  const globexUk = customer('cus_globex_uk', 'Globex Ltd', { accounts: ['GB29NWBK60161331926819'] });
  const euro = customer('cus_euro', 'Acme Corp', { currency: 'eur' });

  function decide(payment: ReturnType<typeof aPayment>, invoices = [anInvoice({ customerId: 'cus_acme', amountDue: 10_000 })]) {
    const source = new InMemoryCandidates(invoices, [acme, globex, globexUk, euro]);
    const locked: string[] = [];
    return { source, locked, result: policy.decide(payment, source, async (id) => void locked.push(id)) };
  }

  it('identifies by an account linked to one customer, then runs rules 3–4 for it (after serialising it)', async () => {
    const { result, locked } = decide(aPayment({ customerId: null, payer: { name: 'Someone Else', account: 'de89 3704 0044 0532 0130 00' } }));
    expect(await result).toMatchObject({ outcome: 'apply', rule: 'exact_amount', customerId: 'cus_acme', identified: { customerId: 'cus_acme', by: 'payer_account' } });
    expect(locked).toEqual(['cus_acme']);
  });

  it('identifies by name or alias after normalisation when no account identifies', async () => {
    for (const name of ['ACME CORP.', 'acme', 'Acme Holdings, Inc.']) {
      expect(await decide(aPayment({ customerId: null, payer: { name, account: null } })).result).toMatchObject({
        outcome: 'apply',
        identified: { customerId: 'cus_acme', by: 'payer_name' },
      });
    }
  });

  it('keeps the customer identified even when no invoice fits', async () => {
    expect(await decide(aPayment({ customerId: null, amount: 123, payer: { name: 'Acme', account: null } })).result).toEqual({
      outcome: 'unmatched',
      identified: { customerId: 'cus_acme', by: 'payer_name' },
    });
  });

  it('does not match names when the tenant turned payer_name_matching off', async () => {
    const { result, source } = decide(aPayment({ customerId: null, payer: { name: 'Acme Corp', account: null }, payerNameMatching: false }));
    expect(await result).toEqual({ outcome: 'unmatched' });
    expect(source.calls.pool).toBe(0);
  });

  it('never guesses: an account linked to two customers goes to review with both, nothing applied', async () => {
    const invoices = [anInvoice({ customerId: 'cus_globex', amountDue: 10_000 }), anInvoice({ customerId: 'cus_globex_uk', amountDue: 7_000 })];
    const decision = await decide(aPayment({ customerId: null, payer: { name: 'Acme Corp', account: 'GB29NWBK60161331926819' } }), invoices).result;
    expect(decision).toEqual({
      outcome: 'review',
      rule: 'payer_account',
      suggestions: [
        {
          invoice_ids: [invoices[0].id],
          rule: 'payer_account',
          customer_id: 'cus_globex',
          confidence: 0.67,
          reason: `The payer's account GB29NWBK60161331926819 fits 2 customers (Globex GmbH, Globex Ltd); Globex GmbH's ${invoices[0].number} is due for exactly 100.00 USD.`,
        },
        {
          invoice_ids: [],
          rule: 'payer_account',
          customer_id: 'cus_globex_uk',
          confidence: 0.33,
          reason: "The payer's account GB29NWBK60161331926819 fits 2 customers (Globex GmbH, Globex Ltd); none of Globex Ltd's open invoices fits 100.00 USD on its own.",
        },
      ],
    });
  });

  it('a name equal to two customers goes to review (the account, which fits none, does not decide)', async () => {
    const twin = customer('cus_twin', 'ACME Holdings');
    const source = new InMemoryCandidates([], [acme, twin]);
    const decision = await policy.decide(aPayment({ customerId: null, payer: { name: 'Acme Holdings', account: 'NL91ABNA0417164300' } }), source);
    expect(decision).toMatchObject({ outcome: 'review', rule: 'payer_name', suggestions: [{ customer_id: 'cus_acme' }, { customer_id: 'cus_twin' }] });
  });

  it('only considers customers in the payment currency', async () => {
    expect(await decide(aPayment({ customerId: null, currency: 'eur', payer: { name: 'Acme Corp', account: null } })).result).toMatchObject({
      identified: { customerId: 'cus_euro', by: 'payer_name' },
    });
  });

  it('lets rules 1–2 identify first: the payer is not even looked up', async () => {
    const invoice = anInvoice({ customerId: 'cus_other', amountDue: 10_000 });
    const { result, source } = decide(aPayment({ customerId: null, reference: invoice.number, payer: { name: 'Acme', account: null } }), [invoice]);
    expect(await result).toMatchObject({ outcome: 'apply', rule: 'reference', customerId: 'cus_other' });
    expect(source.calls.payers).toBe(0);
  });

  it('ignores the payer of a payment whose customer is known', async () => {
    const { result, source } = decide(aPayment({ customerId: 'cus_acme', payer: { name: 'Globex', account: 'GB29NWBK60161331926819' } }));
    expect(await result).toMatchObject({ outcome: 'apply', customerId: 'cus_acme' });
    expect((await result).identified).toBeUndefined();
    expect(source.calls.payers).toBe(0);
  });
});
