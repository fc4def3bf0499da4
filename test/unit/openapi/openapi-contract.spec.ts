import { OpenApiContract } from '../../support/openapi-contract';
import { finalizeOpenApiDocument, toJsonSchema } from '../../../src/shared/http/openapi';

/** The response check every e2e request goes through (test/support/openapi-contract.ts), and the document's type rules. */
const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
      delete: { responses: { 204: { description: 'gone' } } },
    },
    '/api/v1/things/stats': {
      get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } } } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'memo', 'legacy', 'amount', 'due'],
        properties: {
          id: { type: 'string' },
          memo: { type: ['string', 'null'] },
          legacy: { type: 'string', nullable: true },
          amount: { type: 'integer', format: 'int64' },
          due: { type: 'string', format: 'date' },
        },
      },
      Problem: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } },
    },
    responses: { NotFound: { description: 'nf', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } } },
  },
};

const contract = new OpenApiContract(doc);
const ok = { id: 'x', memo: null, legacy: 'a', amount: 12, due: '2026-01-31' };
const check = (method: string, url: string, status: number, contentType: string | null, body: unknown) =>
  contract.check({ method, url, status, contentType, body, text: body === undefined ? '' : JSON.stringify(body) });

describe('OpenApiContract (e2e response validation)', () => {
  it('accepts a response exactly as documented', () => {
    expect(check('GET', '/api/v1/things/a1?x=1', 200, 'application/json; charset=utf-8', ok)).toEqual([]);
    expect(check('GET', '/api/v1/things/a1', 404, 'application/problem+json', { status: 404 })).toEqual([]);
    expect(check('DELETE', '/api/v1/things/a1', 204, null, undefined)).toEqual([]);
  });

  it('refuses a status the operation does not document', () => {
    expect(check('GET', '/api/v1/things/a1', 409, 'application/problem+json', { status: 409 })[0]).toMatch(/status 409 is not documented/);
  });

  it('refuses a content type the status does not document (problem+json documented as json)', () => {
    expect(check('GET', '/api/v1/things/a1', 200, 'application/problem+json', ok)[0]).toMatch(/content type application\/problem\+json is not documented/);
  });

  it('refuses a body where the document has none', () => {
    expect(check('DELETE', '/api/v1/things/a1', 204, 'application/json', { a: 1 })[0]).toMatch(/documented without a body/);
  });

  it('refuses a body that breaks its schema: null where not nullable, 3.0 `nullable` ignored, fractions, bad dates', () => {
    expect(check('GET', '/api/v1/things/a1', 200, 'application/json', { ...ok, id: null }).join()).toMatch(/body\/id must be string/);
    expect(check('GET', '/api/v1/things/a1', 200, 'application/json', { ...ok, legacy: null }).join()).toMatch(/body\/legacy must be string/);
    expect(check('GET', '/api/v1/things/a1', 200, 'application/json', { ...ok, amount: 1.5 }).join()).toMatch(/body\/amount must be integer/);
    expect(check('GET', '/api/v1/things/a1', 200, 'application/json', { ...ok, due: '31/01/2026' }).join()).toMatch(/body\/due must match format "date"/);
  });

  it('matches a literal path segment before a parameter', () => {
    expect(check('GET', '/api/v1/things/stats', 200, 'application/json', { n: 1 })).toEqual([]);
  });

  it('leaves routes outside the document alone (health, docs, unknown paths)', () => {
    expect(check('GET', '/health', 200, 'application/json', { status: 'ok' })).toEqual([]);
    expect(check('GET', '/api/v1/unknown', 404, 'application/problem+json', { status: 404 })).toEqual([]);
  });
});

describe('OpenAPI 3.1 schema rules (src/shared/http/openapi.ts)', () => {
  it('turns nullable into a null type, or an anyOf with null around a $ref', () => {
    expect(toJsonSchema({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(toJsonSchema({ type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/A' }] })).toEqual({ anyOf: [{ $ref: '#/components/schemas/A' }, { type: 'null' }] });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
  });

  it('makes numbers int64 integers unless their format says double, and dates from their examples', () => {
    expect(toJsonSchema({ type: 'number' })).toEqual({ type: 'integer', format: 'int64' });
    expect(toJsonSchema({ type: 'number', format: 'double' })).toEqual({ type: 'number', format: 'double' });
    expect(toJsonSchema({ type: 'string', example: '2026-01-31' })).toMatchObject({ format: 'date' });
    expect(toJsonSchema({ type: 'string', example: '2026-01-31T10:00:00.000Z' })).toMatchObject({ format: 'date-time' });
  });

  it('leaves no `nullable` and no `number` without a format anywhere in a finalized document', () => {
    const finalized = finalizeOpenApiDocument({
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'number', nullable: true } } } } } } } } } },
      components: { schemas: { B: { type: 'object', properties: { s: { type: 'string', nullable: true } } } } },
    } as any);
    const text = JSON.stringify(finalized);
    expect(text).not.toContain('"nullable"');
    expect(finalized.openapi).toBe('3.1.0');
    expect((finalized as any).components.schemas.B.properties.s.type).toEqual(['string', 'null']);
  });
});
