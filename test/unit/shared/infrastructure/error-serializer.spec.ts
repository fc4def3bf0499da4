import { err as stdErrSerializer } from 'pino-std-serializers';
import { QueryFailedError } from 'typeorm';
import { serializeError } from '../../../../src/shared/infrastructure/logging/error.serializer';

/** A pg DatabaseError as the driver raises it (the fields it sets). */
function pgError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { name: 'error', severity: 'ERROR', ...fields });
}

describe('serializeError (the logs never carry SQL parameters or row values)', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Iu2qDf5Em4=';

  it('keeps the statement, SQLSTATE, constraint and table; drops parameters and detail', () => {
    const driver = pgError('duplicate key value violates unique constraint "customers_tenant_id_external_id_key"', {
      code: '23505',
      detail: 'Key (tenant_id, external_id)=(ten_1, jane.doe@example.com) already exists.',
      constraint: 'customers_tenant_id_external_id_key',
      table: 'customers',
      parameters: ['ten_1', 'jane.doe@example.com', secret],
    });
    const error = new QueryFailedError('INSERT INTO customers (tenant_id, external_id, secret) VALUES ($1, $2, $3)', ['ten_1', 'jane.doe@example.com', secret], driver);
    // Called with the error itself, and as pino-http calls it: with pino's own serialization of it.
    for (const logged of [serializeError(error), serializeError(stdErrSerializer(error))]) {
      expectSafe(logged);
    }
  });

  function expectSafe(logged: Record<string, unknown>): void {
    expect(logged).toMatchObject({
      type: 'QueryFailedError',
      code: '23505',
      constraint: 'customers_tenant_id_external_id_key',
      table: 'customers',
      statement: 'INSERT INTO customers (tenant_id, external_id, secret) VALUES ($1, $2, $3)',
    });
    const text = JSON.stringify(logged);
    expect(text).not.toContain('jane.doe@example.com');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('parameters');
  }

  it.each([
    ['invalid input syntax for type bigint: "12ab"', '12ab'],
    ['invalid byte sequence for encoding "UTF8": 0x00', '0x00'],
    ['date/time field value out of range: "2026-13-45"', '2026-13-45'],
  ])('removes the value a message quotes: %s', (message, value) => {
    const logged = serializeError(new QueryFailedError('SELECT $1::bigint', [value], pgError(message, { code: '22P02' })));
    expect(JSON.stringify(logged)).not.toContain(value);
    expect(logged.message).toMatch(/<redacted>$/);
  });

  it('logs other errors with their class, message and stack', () => {
    const logged = serializeError(new RangeError('value is not a safe integer'));
    expect(logged).toMatchObject({ type: 'RangeError', message: 'value is not a safe integer', stack: expect.stringContaining('RangeError') });
  });
});
