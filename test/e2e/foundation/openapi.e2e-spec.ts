import { Logger } from '@nestjs/common';
import { TestApp } from '../../support/test-app';

/**
 * The OpenAPI document must describe every route the application serves under /api/v1. The
 * routes come from Fastify itself (TestApp records them as Nest registers them), so an
 * endpoint added later, or hidden from Swagger by mistake, is caught without editing this test.
 */
const PUBLIC_OPERATIONS = new Set(['post /api/v1/auth/token', 'get /api/v1/status']);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('OpenAPI document', () => {
  let app: TestApp;
  let doc: any;

  let swaggerWarnings: string[] = [];

  beforeAll(async () => {
    // Swagger only warns (through Nest's static Logger) when two DTO classes share a name, and then keeps one of them.
    const warn = jest.spyOn(Logger, 'warn').mockImplementation(() => undefined);
    app = await TestApp.start();
    swaggerWarnings = warn.mock.calls.map((c) => String(c[0]));
    warn.mockRestore();
    const res = await app.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(() => app.close());

  /** `get /api/v1/invoices/{id}` for every operation in the document. */
  const documented = () =>
    Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => HTTP_METHODS.includes(k))
        .map((method) => `${method} ${path}`),
    );

  /** The same for every route Fastify serves under /api/v1 (HEAD is Fastify's automatic twin of GET). */
  const served = () =>
    [
      ...new Set(
        app.routes
          .filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD' && r.method !== 'OPTIONS')
          .map((r) => `${r.method.toLowerCase()} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '')}`),
      ),
    ];

  it('is an OpenAPI 3 document describing the API', () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toMatchObject({ title: 'Receivables API', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('/api/v1/auth/token');
  });

  it('sees the routes it compares (the recorder works)', () => {
    expect(served()).toEqual(expect.arrayContaining(['post /api/v1/auth/token', 'get /api/v1/status']));
  });

  it('documents every /api/v1 route the application serves', () => {
    const missing = served().filter((op) => !documented().includes(op));
    expect(missing).toEqual([]);
  });

  it('documents no route the application does not serve', () => {
    const phantom = documented().filter((op) => !served().includes(op));
    expect(phantom).toEqual([]);
  });

  it('keeps operations outside the versioned API out of it (health, metrics, docs)', () => {
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/'))).toEqual([]);
  });

  it('marks every operation but the public ones as needing a bearer token', () => {
    const unsecured = documented().filter((op) => {
      const [method, path] = op.split(' ');
      const security: Record<string, unknown>[] = doc.paths[path][method].security ?? doc.security ?? [];
      return !PUBLIC_OPERATIONS.has(op) && !security.some((s) => 'bearer' in s);
    });
    expect(unsecured).toEqual([]);
  });

  it('gives every operation a summary, a tag and at least one success response', () => {
    const incomplete = documented().filter((op) => {
      const [method, path] = op.split(' ');
      const operation = doc.paths[path][method];
      const statuses = Object.keys(operation.responses ?? {});
      return !operation.summary || !(operation.tags?.length > 0) || !statuses.some((s) => /^2\d\d$/.test(s));
    });
    expect(incomplete).toEqual([]);
  });

  it('has one schema per DTO name (a duplicate class name silently replaces the other schema)', () => {
    expect(swaggerWarnings.filter((w) => w.includes('Duplicate DTO'))).toEqual([]);
  });

  it('resolves every $ref to a component that exists', () => {
    const refs = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.add(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    const dangling = [...refs].filter((ref) => {
      const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
      return !section || !doc.components?.[section]?.[name];
    });
    expect(dangling).toEqual([]);
  });

  it('uses unique operation ids', () => {
    const ids = documented().map((op) => {
      const [method, path] = op.split(' ');
      return doc.paths[path][method].operationId;
    });
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
