import { ALL_SCOPES } from '../../../src/modules/auth';
import { OpenApiContract } from '../../support/openapi-contract';
import { TestApp, TestTenant } from '../../support/test-app';

/**
 * Swagger UI at /docs, tested through what it is given (the init script's options and the
 * document) and through the requests it makes: the client-credentials sign-in as Swagger UI
 * sends it, and the token then accepted by the operations that declare the oauth2 scheme.
 */
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('Swagger UI', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let doc: any;
  let options: any;

  beforeAll(async () => {
    app = await TestApp.start();
    tenant = await app.createTenant();
    doc = (await app.get('/api/v1/openapi.json')).body;
    const html = await app.get('/docs');
    expect(html.status).toBe(200);
    expect(html.text).toContain('swagger-ui-init.js');
    const init = await app.get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    const start = init.text.indexOf('let options = ') + 'let options = '.length;
    options = JSON.parse(init.text.slice(start, init.text.indexOf('\n};', start) + 2));
  });
  afterAll(() => app.close());

  const operations = () =>
    Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, op]) => ({ method, path, op })),
    );

  it('shows the served document and keeps the sign-in across reloads', () => {
    expect(options.swaggerDoc).toEqual(doc);
    expect(options.customOptions.persistAuthorization).toBe(true);
  });

  it('offers every scope in the client-credentials sign-in, at the token endpoint, and preselects none', () => {
    const flow = doc.components.securitySchemes.oauth2.flows.clientCredentials;
    expect(flow.tokenUrl).toBe('/api/v1/auth/token');
    expect(Object.keys(flow.scopes).sort()).toEqual([...ALL_SCOPES].sort());
    // A client granted fewer scopes would be refused (invalid_scope) if all were asked for.
    expect(options.customOptions.initOAuth?.scopes).toBeUndefined();
  });

  it('lets the oauth2 sign-in authorize every secured operation, with the scopes it needs', () => {
    const wrong = operations()
      .filter(({ op }) => op.security.length > 0)
      .filter(({ op }) => {
        const oauth = op.security.find((s: any) => 'oauth2' in s);
        return !oauth || oauth.oauth2.length === 0 || !op.security.some((s: any) => 'bearer' in s);
      })
      .map(({ method, path }) => `${method} ${path}`);
    expect(wrong).toEqual([]);
    const invoiceCreate = doc.paths['/api/v1/invoices'].post.security;
    expect(invoiceCreate).toContainEqual({ oauth2: ['invoices:write'] });
  });

  it.each([
    ['credentials in the form body, scopes chosen', false, 'customers:read customers:write'],
    ['credentials as HTTP Basic, scopes chosen', true, 'customers:read'],
    ['credentials in the form body, no scope chosen', false, ''],
    ['credentials as HTTP Basic, no scope chosen', true, ''],
  ])('signs in as Swagger UI does (%s), and the token works on an operation that declares oauth2', async (_, basic, scope) => {
    const flow = doc.components.securitySchemes.oauth2.flows.clientCredentials;
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json, text/plain, */*' };
    if (basic) headers.authorization = `Basic ${Buffer.from(`${tenant.client_id}:${tenant.client_secret}`).toString('base64')}`;
    else {
      form.set('client_id', tenant.client_id);
      form.set('client_secret', tenant.client_secret);
    }
    const token = await app.request('POST', flow.tokenUrl, { rawBody: form.toString(), headers });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ access_token: expect.any(String), token_type: expect.stringMatching(/^bearer$/i) });
    const list = await app.get('/api/v1/customers', token.body.access_token);
    expect(list.status).toBe(200);
  });

  it('prefills no filter: query parameters carry no example', () => {
    const prefilled = operations().flatMap(({ method, path, op }) =>
      (op.parameters ?? [])
        .filter((p: any) => p.in === 'query' && (p.example !== undefined || p.examples !== undefined || p.schema?.example !== undefined || p.schema?.examples !== undefined))
        .map((p: any) => `${method} ${path} ?${p.name}`),
    );
    expect(prefilled).toEqual([]);
  });

  it('shows a distinct error example for each status of an operation, with that status', () => {
    const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((n: any, s: string) => n[s], doc) : node);
    const wrong: string[] = [];
    for (const { method, path, op } of operations()) {
      const seen = new Map<string, string>();
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const example = deref(r).content?.['application/problem+json']?.example;
        if (!example) {
          wrong.push(`${method} ${path} ${status}: no problem example`);
          continue;
        }
        if (example.status !== Number(status)) wrong.push(`${method} ${path} ${status}: example says ${example.status}`);
        const key = JSON.stringify(example);
        if (seen.has(key)) wrong.push(`${method} ${path} ${status}: same example as ${seen.get(key)}`);
        seen.set(key, status);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shows response examples that validate against their schemas', async () => {
    const contract = new OpenApiContract(doc);
    const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((n: any, s: string) => n[s], doc) : node);
    const invalid: string[] = [];
    let checked = 0;
    for (const { method, path, op } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        for (const [type, media] of Object.entries<any>(deref(r).content ?? {})) {
          const examples = [media.example, ...Object.values<any>(media.examples ?? {}).map((e) => e.value)].filter((e) => e !== undefined);
          for (const example of examples) {
            checked++;
            const url = path.replace(/\{[^}]+\}/g, 'x_1');
            invalid.push(...contract.check({ method, url, status: Number(status), contentType: type, text: JSON.stringify(example), body: example }));
          }
        }
      }
    }
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});
