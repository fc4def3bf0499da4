import { partitionWindow } from '../../../src/modules/bank-statements/application/process-bank-statement-group.command';
import { StagedCredit } from '../../../src/modules/bank-statements/domain/bank-statement.repository';

const credit = (position: number, key = `k${position}`): StagedCredit => ({
  position,
  account: 'DE89370400440532013000',
  key,
  bankEntryId: null,
  amount: 100,
  currency: 'eur',
  bookingDate: '2026-11-05',
  payer: { name: null, account: null, bankId: null },
  reference: null,
  remittance: [],
});

describe('partitionWindow (concurrent streams of a bank import window, ADR 0037)', () => {
  it('keeps credits that may touch one customer in one stream, in file order, and balances the rest', () => {
    const credits = [1, 2, 3, 4, 5, 6].map((p) => credit(p));
    const touched = [['cus_a'], ['cus_b'], ['cus_a', 'cus_c'], [], ['cus_c'], ['cus_d']];
    const streams = partitionWindow(credits, touched, 2);
    // 1, 3 and 5 are linked through cus_a and cus_c; 2, 4 and 6 share nothing with them.
    expect(streams).toEqual([
      [1, 3, 5],
      [2, 4, 6],
    ]);
  });

  it('keeps two credits with one identity together (the earlier is created, the later counted existing)', () => {
    const credits = [credit(1, 'same'), credit(2), credit(3, 'same')];
    const streams = partitionWindow(credits, [[], [], []], 2);
    expect(streams.find((s) => s.includes(1))).toContain(3);
  });

  it('one stream when everything is linked; never more streams than asked for', () => {
    const credits = [1, 2, 3].map((p) => credit(p));
    expect(partitionWindow(credits, [['cus_a'], ['cus_a'], ['cus_a']], 2)).toEqual([[1, 2, 3]]);
    expect(partitionWindow([1, 2, 3, 4].map((p) => credit(p)), [[], [], [], []], 3)).toHaveLength(3);
    expect(partitionWindow([1, 2].map((p) => credit(p)), [[], []], 1)).toEqual([[1, 2]]);
  });
});
