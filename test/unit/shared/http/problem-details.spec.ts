import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import {
  ConflictError,
  DomainError,
  InvalidStateError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '../../../../src/shared/domain/domain-error';
import { HttpProblem, toProblem } from '../../../../src/shared/http/problem-details.filter';
import { problem } from '../../../../src/shared/http/problem';

const RID = 'req_test';

describe('toProblem', () => {
  let logged: jest.SpyInstance;
  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it.each<[DomainError, number, string]>([
    [new NotFoundError('Invoice', 'inv_1'), 404, 'not_found'],
    [new ConflictError('number taken'), 409, 'conflict'],
    [new InvalidStateError('already void'), 409, 'invalid_state'],
    [new PreconditionFailedError('stale'), 412, 'precondition_failed'],
    [new DomainError('idempotency_key_reused', 'x'), 422, 'idempotency_key_reused'],
    [new DomainError('idempotency_key_in_use', 'x'), 409, 'idempotency_key_in_use'],
    [new DomainError('rate_limited', 'x'), 429, 'rate_limited'],
    [new DomainError('forbidden', 'x'), 403, 'forbidden'],
    [new DomainError('unauthorized', 'x'), 401, 'unauthorized'],
  ])('maps the domain error %p to %d %s with its message', (error, status, code) => {
    const { body, headers } = toProblem(error, RID);
    expect(body).toEqual({ type: `/problems/${code}`, title: expect.any(String), status, detail: error.message, code, request_id: RID });
    expect(headers).toEqual({});
  });

  it('keeps per-field errors of a validation error', () => {
    const { body } = toProblem(ValidationError.field('due_date', 'due_date must not be before issue_date', 'date_order'), RID);
    expect(body).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'due_date', code: 'date_order', message: 'due_date must not be before issue_date' }],
    });
  });

  it('omits an empty errors list', () => {
    expect(toProblem(new ValidationError('bad', []), RID).body).not.toHaveProperty('errors');
  });

  it('passes HttpProblem headers through (WWW-Authenticate, Retry-After)', () => {
    const { body, headers } = toProblem(new HttpProblem('rate_limited', 'slow down', { 'Retry-After': '7' }), RID);
    expect(body).toMatchObject({ status: 429, code: 'rate_limited', detail: 'slow down' });
    expect(headers).toEqual({ 'Retry-After': '7' });
  });

  it.each<[HttpException, number, string]>([
    [new NotFoundException('Cannot GET /api/v1/nope'), 404, 'not_found'],
    [new BadRequestException('limit must be a number'), 400, 'validation_failed'],
    [new ForbiddenException(), 403, 'forbidden'],
    [new PayloadTooLargeException(), 413, 'payload_too_large'],
    [new HttpException('Unsupported', 415), 415, 'unsupported_media_type'],
    [new HttpException('Too Many', 429), 429, 'rate_limited'],
  ])('maps the HttpException %p to %d %s', (error, status, code) => {
    expect(toProblem(error, RID).body).toMatchObject({ status, code, request_id: RID });
  });

  it('does not echo the route of an unknown path', () => {
    expect(toProblem(new NotFoundException('Cannot GET /api/v1/secret-admin'), RID).body.detail).toBe('No such resource or route.');
  });

  it.each([
    new InternalServerErrorException('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2'),
    new ServiceUnavailableException('pool exhausted at SELECT * FROM invoices'),
    new HttpException('upstream said: stack at Foo (/srv/app.js:1:1)', 502),
  ])('a 5xx HttpException does not leak its message (%p)', (error) => {
    const { body } = toProblem(error, RID);
    expect(body.status).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|hunter2|SELECT|stack|app\.js/);
  });

  it('maps a PostgreSQL unique violation to 409 conflict without the constraint or SQL', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "customers_tenant_id_external_id_key"'), {
      code: '23505',
      detail: 'Key (tenant_id, external_id)=(ten_1, X-1) already exists.',
      constraint: 'customers_tenant_id_external_id_key',
    });
    const error = new QueryFailedError('INSERT INTO customers (tenant_id, external_id) VALUES ($1, $2)', ['ten_1', 'X-1'], driverError);
    const { body } = toProblem(error, RID);
    expect(body).toMatchObject({ status: 409, code: 'conflict' });
    expect(JSON.stringify(body)).not.toMatch(/INSERT|customers_tenant|X-1|duplicate key/);
  });

  it.each(['40001', '40P01'])('maps the PostgreSQL concurrency failure %s to a retryable 409', (code) => {
    const error = new QueryFailedError('UPDATE invoices SET ...', [], Object.assign(new Error('could not serialize access'), { code }));
    expect(toProblem(error, RID).body).toMatchObject({ status: 409, code: 'conflict' });
  });

  it.each<[string, unknown]>([
    ['refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111 })],
    ['no socket: the server is down (docs/adr/0053)', Object.assign(new Error('connect ENOENT /srv/data/pg/.s.PGSQL.5432'), { code: 'ENOENT', errno: -2, syscall: 'connect', address: '/srv/data/pg/.s.PGSQL.5432' })],
    ['terminated (57P01)', new QueryFailedError('SELECT 1', [], Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))],
    ['starting up (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['closed mid-query', new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly'))],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['all addresses refused', new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], '')],
  ])('maps a database that cannot be reached (%s) to 503 service_unavailable with Retry-After', (_, error) => {
    const { body, headers } = toProblem(error, RID);
    expect(body).toMatchObject({ status: 503, code: 'service_unavailable', type: '/problems/service_unavailable' });
    expect(Number(headers['Retry-After'])).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|ENOENT|5432|administrator/);
  });

  it.each([
    ['57014', 'canceling statement due to statement timeout'],
    ['55P03', 'canceling statement due to lock timeout'],
  ])('maps the PostgreSQL timeout %s to 503 database_timeout with Retry-After', (code, message) => {
    const error = new QueryFailedError('UPDATE invoices SET ...', [], Object.assign(new Error(message), { code }));
    const { body, headers } = toProblem(error, RID);
    expect(body).toMatchObject({ status: 503, code: 'database_timeout', type: '/problems/database_timeout', title: 'Database timeout' });
    expect(Number(headers['Retry-After'])).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/UPDATE|canceling/);
  });

  it.each<unknown>([
    new Error('relation "invoices" does not exist: SELECT * FROM invoices WHERE tenant_id = $1'),
    new TypeError("Cannot read properties of undefined (reading 'amount')"),
    new QueryFailedError('SELECT secret FROM system_settings', [], Object.assign(new Error('syntax error at or near "FROM"'), { code: '42601' })),
    'a thrown string',
    null,
    undefined,
  ])('maps anything unknown (%p) to 500 internal_error without its message, and logs it', (error) => {
    const { body, headers } = toProblem(error, RID);
    expect(body).toEqual({
      type: '/problems/internal_error',
      title: 'Internal server error',
      status: 500,
      detail: 'An unexpected error occurred.',
      code: 'internal_error',
      request_id: RID,
    });
    expect(headers).toEqual({});
    expect(logged).toHaveBeenCalledTimes(1);
  });

  it('logs a failure with its error and request id, or without the id where the request logger carries it', () => {
    const error = new Error('boom');
    toProblem(error, RID);
    expect(logged).toHaveBeenLastCalledWith({ request_id: RID, err: error }, 'request failed');
    toProblem(new InternalServerErrorException('down'), RID, true);
    expect(logged.mock.lastCall[0]).not.toHaveProperty('request_id');
    expect(logged.mock.lastCall[0].err).toBeInstanceOf(InternalServerErrorException);
  });

  describe('errors raised by Fastify before Nest sees the request', () => {
    it.each<[Record<string, unknown>, number, string]>([
      [{ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: 'Request body is too large' }, 413, 'payload_too_large'],
      [{ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'Unsupported Media Type: text/plain' }, 415, 'unsupported_media_type'],
      [{ code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400, message: "Body cannot be empty when content-type is set to 'application/json'" }, 400, 'malformed_json'],
      [{ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400, message: 'Body is not valid JSON' }, 400, 'malformed_json'],
      [{ code: 'FST_ERR_BAD_URL', statusCode: 400, message: "'/%' is not a valid url component" }, 400, 'validation_failed'],
      [{ code: 'FST_ERR_SOMETHING_NEW', statusCode: 500, message: 'internal detail' }, 500, 'internal_error'],
    ])('%p -> %d %s', (error, status, code) => {
      const { body } = toProblem(Object.assign(new Error(String(error.message)), error), RID);
      expect(body).toMatchObject({ status, code });
      if (status >= 500) expect(body.detail).toBe('An unexpected error occurred.');
    });

    it.each([
      "Body cannot be empty when content-type is set to 'application/json'",
      "Body is not valid JSON but content-type is set to 'application/json'",
    ])('maps the HttpException Nest makes of a Fastify body error (%p) to malformed_json', (message) => {
      expect(toProblem(new HttpException(message, 400), RID).body).toMatchObject({ status: 400, code: 'malformed_json' });
    });

    it("maps the JSON parser's SyntaxError (status 400) to malformed_json", () => {
      const error = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), { statusCode: 400 });
      expect(toProblem(error, RID).body).toMatchObject({ status: 400, code: 'malformed_json', detail: 'The request body is not valid JSON.' });
    });
  });
});

describe('problem', () => {
  it('builds the RFC 9457 shape with the status of the code', () => {
    expect(problem('idempotency_key_reused', 'd', 'r1')).toEqual({
      type: '/problems/idempotency_key_reused',
      title: 'Idempotency key reused',
      status: 422,
      detail: 'd',
      code: 'idempotency_key_reused',
      request_id: 'r1',
    });
  });
});
