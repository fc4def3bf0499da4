import { BankFileItem } from '../../../src/modules/bank-statements/domain/bank-entry';
import { BankFileReader } from '../../../src/modules/bank-statements/domain/bank-file-reader';
import { BankStatementRepository, StagedCredit } from '../../../src/modules/bank-statements/domain/bank-statement.repository';
import { ImportBankStatementCommand, ImportBankStatementHandler } from '../../../src/modules/bank-statements/application/import-bank-statement.command';
import { Clock } from '../../../src/shared/domain/clock';

const credit = (position: number): BankFileItem => ({
  kind: 'credit',
  entry: { position, account: 'DE89370400440532013000', bankEntryId: `E${position}`, amount: 100, currency: 'eur', bookingDate: '2026-11-06', payer: { name: null, account: null, bankId: null }, reference: null, remittance: [] },
});

/** A repository whose staging INSERTs are answered only when the test says so. */
function world(entries: number, failStage?: number) {
  const events: string[] = [];
  const answers: (() => void)[] = [];
  let read = 0;
  const statements = {
    create: async () => undefined,
    stage: (_t: string, _id: string, credits: readonly StagedCredit[]) => {
      const n = events.filter((e) => e.startsWith('stage')).length + 1;
      events.push(`stage ${n}: ${credits.length} credits, ${read} entries read`);
      return new Promise<void>((resolve, reject) =>
        answers.push(() => {
          events.push(`answer ${n}: ${read} entries read`);
          if (n === failStage) reject(new Error('insert failed'));
          else resolve();
        }),
      );
    },
    finishStaging: async () => ({ id: 'bst_1' }),
    complete: async () => null,
  } as unknown as BankStatementRepository;
  const reader = {
    read: async function* () {
      for (let p = 1; p <= entries; p++) {
        read = p;
        yield credit(p);
      }
    },
  } as unknown as BankFileReader;
  const clock = { now: () => new Date('2026-11-27T10:00:00Z') } as unknown as Clock;
  const handler = new ImportBankStatementHandler(statements, reader, clock);
  const answerAll = async () => {
    while (!done) {
      await new Promise((r) => setImmediate(r));
      answers.shift()?.();
    }
  };
  let done = false;
  const run = handler.execute(new ImportBankStatementCommand('ten_1', 'camt.053', (async function* () {})())).finally(() => (done = true));
  return { events, run, answerAll };
}

describe('ImportBankStatementHandler staging', () => {
  it('reads the next batch while the previous one is inserted, one INSERT in flight at a time, in file order', async () => {
    const { events, run, answerAll } = world(2500);
    await Promise.all([run, answerAll()]);
    // The second batch was read in full while the first INSERT was still unanswered; the second
    // INSERT was sent only once the first was answered.
    expect(events).toEqual([
      'stage 1: 1000 credits, 1000 entries read',
      'answer 1: 2000 entries read',
      'stage 2: 1000 credits, 2000 entries read',
      'answer 2: 2500 entries read',
      'stage 3: 500 credits, 2500 entries read',
      'answer 3: 2500 entries read',
    ]);
  });

  it('fails with the INSERT that failed, after no other statement was sent', async () => {
    const { events, run, answerAll } = world(3500, 2);
    await expect(Promise.all([run, answerAll()])).rejects.toThrow('insert failed');
    expect(events).toEqual(['stage 1: 1000 credits, 1000 entries read', 'answer 1: 2000 entries read', 'stage 2: 1000 credits, 2000 entries read', 'answer 2: 3000 entries read']);
  });
});
