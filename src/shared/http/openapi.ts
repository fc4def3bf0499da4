import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerCustomOptions, SwaggerModule } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE, problem, STATUS_BY_CODE } from './problem';

/**
 * The OpenAPI document the service serves at /api/v1/openapi.json (docs/openapi.md).
 *
 * @nestjs/swagger generates it from the controllers and DTO decorators; what those decorators
 * say about a single field stays there. What is true of every operation alike is added here,
 * in one place, after generation:
 * - OpenAPI 3.1 / JSON Schema 2020-12 types: `nullable` becomes a `"null"` type, numbers are
 *   integers (money is integer minor units; `format: double` opts out), date and date-time
 *   formats from the examples;
 * - security per operation: the oauth2 client-credentials scheme with the route's scopes
 *   (from @RequireScopes), or the same token as a plain bearer;
 * - every error as application/problem+json with a distinct example per status, and the
 *   errors every operation of a kind can answer (401/403/429 with a token, 400/413/415 with a
 *   body, 404/414 with an id, 409/422 with an Idempotency-Key, 408/431/500/503 anywhere);
 * - headers: Idempotency-Key on POST, RateLimit-* and X-Request-Id on every answer;
 * - no examples on query parameters (Swagger UI would send them as filters).
 * The e2e suite checks every response against the result, and Redocly lints it (0/0).
 */

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'invoices:read': 'Read invoices and credit notes',
  'invoices:write': 'Create, change and write off invoices; issue and apply credit notes',
  'payments:read': 'Read payments, matches and bank statement imports',
  'payments:write': 'Record, match and refund payments; import bank statements',
  'customers:read': 'Read customers, their figures and statements',
  'customers:write': 'Create and change customers (and their credit fields)',
  'webhooks:read': 'Read webhook endpoints and deliveries',
  'webhooks:write': 'Register, change and test webhook endpoints',
  'settings:read': 'Read tenant settings',
  'settings:write': 'Change tenant settings',
};

/** The extension @RequireScopes leaves on an operation for this step; removed from the served document. */
export const SCOPES_EXTENSION = 'x-required-scopes';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const PROBLEM_REF = '#/components/schemas/ProblemResponse';
const REQUEST_ID_EXAMPLE = 'req_01jc9x7m3ef0ab6yr2t0n4q8zd';

/** Responses many operations share, documented once under components/responses. */
const SHARED_RESPONSES: Record<string, { status: number; code: string; description: string; detail: string; headers?: Record<string, string> }> = {
  Unauthorized: { status: 401, code: 'unauthorized', description: 'Missing, invalid, expired or revoked token', detail: 'The bearer token is missing, invalid or expired.', headers: { 'WWW-Authenticate': 'WwwAuthenticate' } },
  Forbidden: { status: 403, code: 'forbidden', description: 'The token lacks the scope', detail: 'This token lacks the scope(s): invoices:write.' },
  PayloadTooLarge: { status: 413, code: 'payload_too_large', description: 'The body is larger than the limit', detail: 'The request body is larger than 1048576 bytes.' },
  UnsupportedMediaType: { status: 415, code: 'unsupported_media_type', description: 'The body is not application/json', detail: 'Send the request body as application/json.' },
  TooManyRequests: { status: 429, code: 'rate_limited', description: 'Rate limited; Retry-After says when to try again', detail: 'Rate limit of 600 requests per 60 s reached.', headers: { 'Retry-After': 'RetryAfter' } },
  RequestTimeout: { status: 408, code: 'request_timeout', description: 'The request did not arrive in time (the connection is closed)', detail: 'The request did not arrive in time.' },
  UriTooLong: { status: 414, code: 'uri_too_long', description: 'A path segment is longer than 100 characters', detail: 'A path segment of the URL is longer than 100 characters.' },
  HeadersTooLarge: { status: 431, code: 'headers_too_large', description: 'The request line and headers exceed 16 KiB (the connection is closed)', detail: 'The request line and headers exceed 16 KiB.' },
  InternalError: { status: 500, code: 'internal_error', description: 'An unexpected error; the body never says more (the logs do, under the request id)', detail: 'An unexpected error occurred.' },
  ServiceUnavailable: { status: 503, code: 'service_unavailable', description: 'The database is unreachable; retry later', detail: 'The service is temporarily unavailable; retry later.', headers: { 'Retry-After': 'RetryAfter' } },
};

/** The code each status stands for when an operation's description names none. */
const DEFAULT_CODE: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'idempotency_key_reused',
  429: 'rate_limited',
  503: 'service_unavailable',
};

const REASON: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

const RATE_LIMIT_HEADERS: Record<string, { description: string; example: string }> = {
  RateLimit: { description: 'Remaining quota and seconds until reset (IETF draft httpapi-ratelimit-headers)', example: '"default";r=599;t=60' },
  'RateLimit-Policy': { description: 'The quota and window in seconds', example: '"default";q=600;w=60' },
  'RateLimit-Limit': { description: 'Requests allowed per window', example: '600' },
  'RateLimit-Remaining': { description: 'Requests left in the current window', example: '599' },
  'RateLimit-Reset': { description: 'Seconds until the window resets', example: '60' },
};

export interface OpenApiOptions {
  version: string;
  prefix: string;
}

export function buildOpenApiDocument(app: INestApplication, options: OpenApiOptions): OpenAPIObject {
  const generated = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('Receivables API')
      .setDescription(
        'Invoices, payments, automatic cash application, credit and aging, statements and signed webhooks. ' +
          'Money is an integer in minor units; errors are RFC 9457 problem+json.',
      )
      .setVersion(options.version)
      .setLicense('MIT', 'https://opensource.org/license/mit')
      .addServer('/', 'This service (paths are relative to where it is served)')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /api/v1/auth/token' })
      .addOAuth2({
        type: 'oauth2',
        description: 'OAuth 2.0 client credentials; the token is then sent as a bearer token',
        flows: { clientCredentials: { tokenUrl: `/${options.prefix}/auth/token`, scopes: SCOPE_DESCRIPTIONS } },
      })
      .build(),
  );
  return finalizeOpenApiDocument(generated);
}

/** Swagger UI at /docs: the client-credentials sign-in is kept across reloads and its token sent. */
export function swaggerUiOptions(): SwaggerCustomOptions {
  return {
    swaggerOptions: {
      persistAuthorization: true,
      // No scope is preselected: a token asked for without scopes carries all the client's own,
      // whereas asking for one the client lacks is refused (invalid_scope).
      displayRequestDuration: true,
    },
  };
}

type Json = Record<string, any>;

export function finalizeOpenApiDocument(doc: OpenAPIObject): OpenAPIObject {
  const d = doc as Json;
  d.openapi = '3.1.0';
  d.components ??= {};
  d.components.schemas ??= {};
  for (const name of Object.keys(d.components.schemas)) d.components.schemas[name] = toJsonSchema(d.components.schemas[name]);
  d.components.schemas.ProblemResponse = problemSchema(d.components.schemas.ProblemResponse);
  d.components.headers = {
    ...Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([name, h]) => [headerKey(name), { description: h.description, schema: { type: 'string' }, example: h.example }])),
    XRequestId: { description: 'The request id, also in problem bodies and the logs', schema: { type: 'string' }, example: REQUEST_ID_EXAMPLE },
    RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 }, example: 30 },
    WwwAuthenticate: { description: 'The bearer challenge (RFC 6750)', schema: { type: 'string' }, example: 'Bearer realm="receivables", error="invalid_token"' },
    IdempotentReplayed: { description: '"true" when this is the stored answer to an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
    Link: { description: 'The next page, when there is one: `</api/v1/…?cursor=…>; rel="next"` (RFC 8288)', schema: { type: 'string' }, example: '</api/v1/invoices?cursor=eyJ2IjoxfQ&limit=50>; rel="next"' },
    ETag: { description: 'Strong entity tag: the version, e.g. "3"; send it back as If-Match', schema: { type: 'string' }, example: '"3"' },
  };
  d.components.parameters = {
    ...(d.components.parameters ?? {}),
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes the POST safe to retry: a repeat with the same key and body returns the stored answer (24 h); with another body 422; while the first is in flight 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    },
  };
  d.components.responses = Object.fromEntries(
    Object.entries(SHARED_RESPONSES).map(([name, r]) => [
      name,
      {
        description: r.description,
        headers: { ...(r.headers ? Object.fromEntries(Object.entries(r.headers).map(([h, ref]) => [h, { $ref: `#/components/headers/${ref}` }])) : {}), ...commonHeaders() },
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: PROBLEM_REF }, example: problemExample(r.code, r.detail) } },
      },
    ]),
  );

  for (const [path, item] of Object.entries<Json>(d.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op) finalizeOperation(d, method, path, op);
    }
  }
  moveRequestDefaults(d);
  return doc;
}

/**
 * `default` in a request schema: a PATCH has none (an absent field stays as it is), and
 * generators (openapi-typescript's default) make a property with a default required, which a
 * caller of POST need not send either. So request schemas say their defaults in words.
 */
function moveRequestDefaults(d: Json): void {
  const reached = (method: 'patch' | 'other') => {
    const names = new Set<string>();
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
            const name = v.slice('#/components/schemas/'.length);
            if (!names.has(name)) {
              names.add(name);
              visit(d.components.schemas[name]);
            }
          } else visit(v);
        }
      }
    };
    for (const item of Object.values<Json>(d.paths ?? {})) {
      for (const m of HTTP_METHODS) if (item[m]?.requestBody && (m === 'patch') === (method === 'patch')) visit(item[m].requestBody);
    }
    return names;
  };
  const posted = reached('other');
  const patched = reached('patch');
  const strip = (schema: Json, inWords: boolean): void => {
    for (const prop of Object.values<Json>(schema.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (inWords) prop.description = `${prop.description ? `${prop.description.replace(/\.?$/, '.')} ` : ''}Default: ${JSON.stringify(prop.default)}.`;
      delete prop.default;
    }
  };
  for (const name of new Set([...posted, ...patched])) strip(d.components.schemas[name], posted.has(name) && !patched.has(name));
}

function finalizeOperation(doc: Json, method: string, path: string, op: Json): void {
  const scopes: string[] | undefined = op[SCOPES_EXTENSION];
  delete op[SCOPES_EXTENSION];
  const authenticated = Array.isArray(op.security) && op.security.some((s: Json) => 'bearer' in s);
  op.security = authenticated ? [{ oauth2: scopes ?? [] }, { bearer: [] }] : [];
  if (authenticated && scopes?.length) {
    op.description = `${op.description ? `${op.description}\n\n` : ''}Scope${scopes.length > 1 ? 's' : ''}: ${scopes.map((s) => `\`${s}\``).join(', ')}.`;
  }

  op.parameters = (op.parameters ?? []).map((p: Json) => {
    // Formats first: a date filter's example is what says it is a date.
    if (p.schema) {
      const format = toJsonSchema({ ...p.schema, example: p.schema.example ?? p.example }).format;
      p.schema = toJsonSchema(p.schema);
      if (format !== undefined) p.schema.format = format;
    }
    if (p.in === 'query') {
      // Swagger UI fills a parameter's example into the form and sends it: no filter is preset.
      delete p.example;
      delete p.examples;
      if (p.schema) {
        delete p.schema.example;
        delete p.schema.examples;
      }
    }
    return p;
  });
  const idempotent = authenticated && method === 'post';
  if (idempotent) {
    op.parameters = op.parameters.filter((p: Json) => !(p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key'));
    op.parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  }
  if (op.parameters.length === 0) delete op.parameters;

  const jsonBody = op.requestBody?.content && Object.keys(op.requestBody.content).some((t) => t.includes('json'));
  for (const media of Object.values<Json>(op.requestBody?.content ?? {})) if (media.schema) media.schema = toJsonSchema(media.schema);

  const responses: Json = (op.responses ??= {});
  // What every operation of a kind can answer.
  const add = (status: number, response: Json) => {
    responses[status] ??= response;
  };
  const hasInput = (op.parameters ?? []).length > 0 || path.includes('{') || op.requestBody;
  if (authenticated) {
    add(401, { $ref: '#/components/responses/Unauthorized' });
    add(403, { $ref: '#/components/responses/Forbidden' });
    add(429, { $ref: '#/components/responses/TooManyRequests' });
  }
  if (hasInput || idempotent) add(400, { description: 'validation_failed: a parameter or the body is not valid' });
  if (path.includes('{')) {
    add(404, { description: 'not_found (also for another tenant\'s or a malformed id)' });
    add(414, { $ref: '#/components/responses/UriTooLong' });
  }
  add(408, { $ref: '#/components/responses/RequestTimeout' });
  add(431, { $ref: '#/components/responses/HeadersTooLarge' });
  add(500, { $ref: '#/components/responses/InternalError' });
  if (jsonBody) {
    add(413, { $ref: '#/components/responses/PayloadTooLarge' });
    add(415, { $ref: '#/components/responses/UnsupportedMediaType' });
  }
  if (idempotent) {
    add(409, { description: 'idempotency_key_in_use: a request with this Idempotency-Key is still in progress' });
    add(422, { description: 'idempotency_key_reused: this Idempotency-Key was used with another request' });
  }
  add(503, { $ref: '#/components/responses/ServiceUnavailable' });

  for (const [status, response] of Object.entries<Json>(responses)) {
    if (response.$ref) continue;
    const code = Number(status);
    if (!response.description) response.description = REASON[code] ?? 'Success';
    response.headers = { ...(response.headers ?? {}), ...commonHeaders(authenticated) };
    for (const [name, header] of Object.entries<Json>(response.headers)) {
      if (name.toLowerCase() === 'etag') response.headers[name] = { $ref: '#/components/headers/ETag' };
      else if (header.schema) header.schema = toJsonSchema(header.schema);
    }
    if (code >= 200 && code < 300 && idempotent) response.headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
    if (code === 200 && isPage(doc, response)) response.headers.Link = { $ref: '#/components/headers/Link' };
    if (code === 429) response.headers['Retry-After'] ??= { $ref: '#/components/headers/RetryAfter' };
    if (code >= 400) {
      const detail = String(response.description ?? '');
      const media = { schema: { $ref: PROBLEM_REF }, example: problemExample(codeFor(code, detail), detailFor(code, detail)) };
      // An operation's own error format (the token endpoint's OAuth errors) stays; what the
      // framework refuses before it (malformed JSON, media type, body size) is still a problem.
      if (isProblem(response)) response.content = { [PROBLEM_CONTENT_TYPE]: media };
      else response.content[PROBLEM_CONTENT_TYPE] ??= media;
    }
    for (const media of Object.values<Json>(response.content ?? {})) if (media.schema) media.schema = toJsonSchema(media.schema);
  }
  // Authenticated operations' shared responses carry the rate-limit headers already; public ones never use them.
}

function commonHeaders(rateLimited = true): Json {
  return {
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    ...(rateLimited ? Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${headerKey(name)}` }])) : {}),
  };
}

function headerKey(name: string): string {
  return name.replace(/-/g, '');
}

/** A keyset page (`data`, `has_more`, `next_cursor`): its next page is also in the Link header (next-link.ts). */
function isPage(doc: Json, response: Json): boolean {
  const ref: string | undefined = response.content?.['application/json']?.schema?.$ref;
  const schema = ref ? doc.components.schemas[ref.split('/').pop() as string] : undefined;
  return Boolean(schema?.properties?.next_cursor);
}

/** A response documented as a problem, or documented without a body (every error is a problem). */
function isProblem(response: Json): boolean {
  const content: Json | undefined = response.content;
  if (!content || Object.keys(content).length === 0) return true;
  return Object.values<Json>(content).some((m) => m.schema?.$ref === PROBLEM_REF);
}

/** The problem code a response's description starts with (`conflict: …`), else the status's usual one. */
function codeFor(status: number, description: string): string {
  const named = /^([a-z_]+)\b/.exec(description)?.[1];
  if (named && STATUS_BY_CODE[named] === status) return named;
  return DEFAULT_CODE[status] ?? Object.keys(STATUS_BY_CODE).find((c) => STATUS_BY_CODE[c] === status) ?? 'internal_error';
}

const DEFAULT_DETAIL: Record<string, string> = {
  validation_failed: 'The request is not valid: currency must be a string.',
  not_found: 'No such resource.',
  conflict: 'The request conflicts with the current state.',
  invalid_state: 'Not allowed in the current state.',
  precondition_failed: 'If-Match does not match the current version.',
  not_acceptable: 'None of the accepted media types can be produced.',
};

function detailFor(status: number, description: string): string {
  const named = /^([a-z_]+)$/.exec(description.trim())?.[1];
  const text = named ? '' : description.replace(/^[a-z_]+(?:\s*[:(]\s*|\s+)/, '').replace(/\)$/, '').trim();
  const fallback = DEFAULT_DETAIL[codeFor(status, description)] ?? `The request failed with status ${status}.`;
  const sentence = text ? text.charAt(0).toUpperCase() + text.slice(1) : fallback;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

function problemExample(code: string, detail: string): Json {
  const body = problem(code, detail, REQUEST_ID_EXAMPLE) as Json;
  if (code === 'validation_failed') body.errors = [{ field: 'currency', code: 'isString', message: 'currency must be a string' }];
  return body;
}

function problemSchema(generated: Json | undefined): Json {
  const schema = generated ?? { type: 'object', properties: {} };
  schema.description = 'RFC 9457 problem details, sent as application/problem+json';
  schema.properties.status = { type: 'integer', minimum: 400, maximum: 599, example: 400 };
  return schema;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * One schema as JSON Schema 2020-12 says it: `nullable` (OpenAPI 3.0) becomes a "null" type
 * (or an anyOf with null around a $ref), `number` becomes `integer` unless its format says
 * double/float, and a string whose example is a date or a date-time gets that format.
 */
export function toJsonSchema(schema: Json): Json {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  let s: Json = { ...schema };
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) if (Array.isArray(s[key])) s[key] = s[key].map(toJsonSchema);
  for (const key of ['items', 'not', 'additionalProperties', 'contains']) if (s[key] && typeof s[key] === 'object') s[key] = toJsonSchema(s[key]);
  if (s.properties) s.properties = Object.fromEntries(Object.entries<Json>(s.properties).map(([k, v]) => [k, toJsonSchema(v)]));

  if (s.type === 'number' && s.format !== 'double' && s.format !== 'float') {
    s.type = 'integer';
    s.format ??= 'int64';
  }
  if (s.type === 'integer' && s.format === undefined) s.format = 'int64';
  if (s.type === 'string' && s.format === undefined && !s.enum) {
    const example = s.example ?? s.examples?.[0];
    if (typeof example === 'string' && DATE.test(example)) s.format = 'date';
    else if (typeof example === 'string' && DATE_TIME.test(example)) s.format = 'date-time';
  }
  if (typeof s.exclusiveMinimum === 'boolean') {
    if (s.exclusiveMinimum) s.exclusiveMinimum = s.minimum;
    else delete s.exclusiveMinimum;
    if (typeof s.exclusiveMinimum === 'number') delete s.minimum;
  }
  if (typeof s.exclusiveMaximum === 'boolean') {
    if (s.exclusiveMaximum) s.exclusiveMaximum = s.maximum;
    else delete s.exclusiveMaximum;
    if (typeof s.exclusiveMaximum === 'number') delete s.maximum;
  }

  if (s.nullable === true) {
    delete s.nullable;
    const single = Array.isArray(s.allOf) && s.allOf.length === 1 ? s.allOf[0] : s.$ref ? { $ref: s.$ref } : undefined;
    if (single?.$ref) {
      const { allOf: _allOf, $ref: _ref, type: _type, ...rest } = s;
      s = { ...rest, anyOf: [single, { type: 'null' }] };
    } else if (typeof s.type === 'string') {
      s.type = [s.type, 'null'];
      if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
    }
  } else if (s.nullable === false) {
    delete s.nullable;
  }
  // A $ref beside other keywords: 3.0 generators wrap it in allOf; 2020-12 allows siblings, but keep the wrapper for tools.
  if (s.type === 'object' && Array.isArray(s.allOf) && s.allOf.length === 1 && s.allOf[0].$ref && !s.properties) delete s.type;
  return s;
}
