import { relayTimeoutOptions } from '../../../src/modules/webhooks/infrastructure/relay-database';

describe('relay pool timeouts', () => {
  it('takes the service settings, with statements cut at 30 s at most', () => {
    expect(relayTimeoutOptions({ statementMs: 5_000, lockMs: 2_000, idleInTransactionMs: 9_000 })).toEqual({
      statement_timeout: 5_000,
      lock_timeout: 2_000,
      idle_in_transaction_session_timeout: 9_000,
    });
    expect(relayTimeoutOptions({ statementMs: 120_000, lockMs: 0, idleInTransactionMs: 0 })).toEqual({ statement_timeout: 30_000 });
    expect(relayTimeoutOptions({ statementMs: 0, lockMs: 10_000, idleInTransactionMs: 60_000 })).toEqual({
      statement_timeout: 30_000,
      lock_timeout: 10_000,
      idle_in_transaction_session_timeout: 60_000,
    });
  });
});
