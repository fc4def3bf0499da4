/**
 * @receivables/client — a small hand-written layer over the generated types (schema.d.ts) for
 * what generation cannot give: OAuth 2.0 client-credentials tokens refreshed before expiry,
 * typed requests, `for await` over every page of a list, an automatic Idempotency-Key on POST with
 * safe retries (network errors, 429 honouring Retry-After, 5xx), typed problem+json errors, and
 * Standard Webhooks signature verification. No runtime dependencies: global fetch (Node ≥ 20).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { components, paths } from './schema';

export type { components, paths };
export type Schemas = components['schemas'];

const PREFIX = '/api/v1';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** API paths without the /api/v1 prefix, e.g. '/invoices/{id}'. */
export type ApiPath = keyof paths extends infer K ? (K extends `${typeof PREFIX}${infer R}` ? R : never) : never;
type Full<P extends ApiPath> = `${typeof PREFIX}${P}` & keyof paths;
export type PathsWith<M extends Method> = { [P in ApiPath]: paths[Full<P>] extends Record<M, infer O> ? ([O] extends [never | undefined] ? never : P) : never }[ApiPath];
type Op<P extends ApiPath, M extends Method> = NonNullable<paths[Full<P>][M & keyof paths[Full<P>]]>;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : unknown;
type SuccessOf<O> = O extends { responses: infer R } ? { [K in keyof R]: K extends 200 | 201 | 202 ? JsonOf<R[K]> : never }[keyof R] : unknown;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type PathParamsOf<O> = O extends { parameters: { path?: infer Q } } ? ([Q] extends [never | undefined] ? never : Q) : never;
// Query values go into the URL as text, so numbers and booleans are accepted for any parameter.
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [never | undefined] ? never : { [K in keyof Q]?: Q[K] | number | boolean }) : never;

/** The answer type of an operation, e.g. `ResponseOf<'/invoices/{id}', 'get'>`. */
export type ResponseOf<P extends ApiPath, M extends Method> = SuccessOf<Op<P, M>>;
/** The JSON request body of an operation. */
export type RequestOf<P extends ApiPath, M extends Method> = BodyOf<Op<P, M>>;
/** The item type of a list endpoint. */
export type ItemOf<P extends ApiPath> = ResponseOf<P, 'get'> extends { data: Array<infer I> } ? I : never;

export interface CallOptions<O = unknown> {
  path?: PathParamsOf<O>;
  query?: QueryOf<O>;
  body?: BodyOf<O>;
  /** A non-JSON body (e.g. a bank file), sent with `contentType`. */
  rawBody?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  /** POST only: defaults to a new random key per call, reused by every retry of that call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiResult<T> {
  status: number;
  headers: Headers;
  data: T;
  /** The ETag header (e.g. `"3"`), for If-Match. */
  etag: string | null;
}

export interface ClientOptions {
  /** The service's address, e.g. `https://ar.example.com` (with or without `/api/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default: all the client has). */
  scope?: string;
  /** Retries after the first attempt (network error, 429, 5xx). Default 3. */
  maxRetries?: number;
  /** First backoff delay in ms when the answer has no Retry-After (doubles each retry, ±20 % jitter). Default 500. */
  retryBaseDelayMs?: number;
  /** A Retry-After longer than this (seconds) is not waited for: the error is thrown. Default 60. */
  maxRetryAfterSeconds?: number;
  /** Fetch a new token this many seconds before the current one expires. Default 60. */
  tokenRefreshSkewSeconds?: number;
  fetch?: typeof fetch;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** An RFC 9457 problem answered by the API. */
export class ProblemError extends Error {
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** The API's stable error code, e.g. `validation_failed`, `precondition_failed`. */
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly errors: Array<{ field?: string; message?: string; [k: string]: unknown }> | undefined;
  /** Seconds, from the Retry-After header. */
  readonly retryAfter: number | undefined;

  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown>,
    readonly headers: Headers,
  ) {
    const detail = typeof problem.detail === 'string' ? problem.detail : '';
    super(`${status} ${typeof problem.code === 'string' ? problem.code : (problem.title ?? 'error')}${detail ? `: ${detail}` : ''}`);
    this.name = 'ProblemError';
    this.type = typeof problem.type === 'string' ? problem.type : 'about:blank';
    this.title = typeof problem.title === 'string' ? problem.title : '';
    this.detail = detail;
    this.code = typeof problem.code === 'string' ? problem.code : undefined;
    this.requestId = typeof problem.request_id === 'string' ? problem.request_id : (headers.get('x-request-id') ?? undefined);
    this.errors = Array.isArray(problem.errors) ? (problem.errors as ProblemError['errors']) : undefined;
    this.retryAfter = parseRetryAfter(headers.get('retry-after'));
  }
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export class ReceivablesClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private accessToken: { value: string; expiresAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '') + PREFIX;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** A valid access token: cached, fetched again shortly before it expires (concurrent callers share one fetch). */
  async token(): Promise<string> {
    const skew = (this.options.tokenRefreshSkewSeconds ?? 60) * 1000;
    if (this.accessToken && Date.now() < this.accessToken.expiresAt - skew) return this.accessToken.value;
    this.pendingToken ??= this.fetchToken().finally(() => (this.pendingToken = undefined));
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const body: RequestOf<'/auth/token', 'post'> = {
      grant_type: 'client_credentials',
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    } as RequestOf<'/auth/token', 'post'>;
    const started = Date.now();
    const res = await this.execute<{ access_token: string; expires_in: number }>('POST', `${this.base}/auth/token`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    this.accessToken = { value: res.data.access_token, expiresAt: started + res.data.expires_in * 1000 };
    return res.data.access_token;
  }

  /** Any operation, with status, headers and ETag. */
  async send<M extends Method, P extends PathsWith<M>>(method: M, path: P, options: CallOptions<Op<P, M>> = {}): Promise<ApiResult<ResponseOf<P, M>>> {
    const url = new URL(this.base + expandPath(path, options.path as Record<string, unknown> | undefined));
    for (const [k, v] of Object.entries((options.query ?? {}) as Record<string, unknown>)) {
      if (v !== undefined && v !== null) url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    // One key per logical call: every retry below sends the same key, so the API does it once.
    if (method === 'post') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    let retriedAuth = false;
    for (;;) {
      const token = await this.token();
      try {
        return await this.execute<ResponseOf<P, M>>(method.toUpperCase(), url.toString(), {
          headers: { ...headers, authorization: `Bearer ${token}` },
          body,
          signal: options.signal,
        });
      } catch (e) {
        // A token revoked or expired early: fetch a new one once.
        if (e instanceof ProblemError && e.status === 401 && !retriedAuth) {
          retriedAuth = true;
          this.accessToken = undefined;
          continue;
        }
        throw e;
      }
    }
  }

  /** One HTTP exchange with retries on network errors, 429 and 5xx. */
  private async execute<T>(method: string, url: string, init: { headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal }): Promise<ApiResult<T>> {
    const maxRetries = this.options.maxRetries ?? 3;
    const base = this.options.retryBaseDelayMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers: init.headers, body: init.body as RequestInit['body'], signal: init.signal });
      } catch (e) {
        if (init.signal?.aborted || attempt >= maxRetries) throw e;
        await this.sleep(backoff(base, attempt));
        continue;
      }
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      const data = type.includes('json') && text ? JSON.parse(text) : text;
      if (res.ok) return { status: res.status, headers: res.headers, data: data as T, etag: res.headers.get('etag') };
      const problem = new ProblemError(res.status, typeof data === 'object' && data ? data : { title: res.statusText, detail: String(data) }, res.headers);
      if (RETRYABLE_STATUS.has(res.status) && attempt < maxRetries) {
        const after = problem.retryAfter;
        if (after !== undefined && after > (this.options.maxRetryAfterSeconds ?? 60)) throw problem;
        await this.sleep(after !== undefined ? after * 1000 : backoff(base, attempt));
        continue;
      }
      throw problem;
    }
  }

  async get<P extends PathsWith<'get'>>(path: P, options?: CallOptions<Op<P, 'get'>>): Promise<ResponseOf<P, 'get'>> {
    return (await this.send('get', path, options)).data;
  }

  async post<P extends PathsWith<'post'>>(path: P, options?: CallOptions<Op<P, 'post'>>): Promise<ResponseOf<P, 'post'>> {
    return (await this.send('post', path, options)).data;
  }

  /** `ifMatch`: the ETag read before (412 precondition_failed if the resource changed since). */
  async patch<P extends PathsWith<'patch'>>(path: P, options?: CallOptions<Op<P, 'patch'>> & { ifMatch?: string }): Promise<ResponseOf<P, 'patch'>> {
    const { ifMatch, ...rest } = options ?? {};
    return (await this.send('patch', path, { ...rest, headers: { ...rest.headers, ...(ifMatch ? { 'if-match': ifMatch } : {}) } } as CallOptions<Op<P, 'patch'>>)).data;
  }

  async delete<P extends PathsWith<'delete'>>(path: P, options?: CallOptions<Op<P, 'delete'>>): Promise<ResponseOf<P, 'delete'>> {
    return (await this.send('delete', path, options)).data;
  }

  /** Every page of a list, following next_cursor with the same filters and sort. */
  async *pages<P extends PathsWith<'get'>>(path: P, options: CallOptions<Op<P, 'get'>> = {}): AsyncGenerator<ResponseOf<P, 'get'>> {
    let cursor: string | undefined;
    for (;;) {
      const query = { ...(options.query as object), ...(cursor ? { cursor } : {}) } as QueryOf<Op<P, 'get'>>;
      const page = (await this.send('get', path, { ...options, query })).data as { data: unknown[]; has_more?: boolean; next_cursor?: string | null };
      yield page as ResponseOf<P, 'get'>;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** Every item of a list, across pages: `for await (const invoice of client.list('/invoices', { query: { limit: 100 } }))`. */
  async *list<P extends PathsWith<'get'>>(path: P, options: CallOptions<Op<P, 'get'>> = {}): AsyncGenerator<ItemOf<P>> {
    for await (const page of this.pages(path, options)) yield* (page as unknown as { data: ItemOf<P>[] }).data;
  }

  /** Uploads a bank file (camt.053, camt.054, bai2, mt940, csv) as the bank sent it; 202, processed in the background. */
  async importBankStatement(file: string | Uint8Array, format: 'camt.053' | 'camt.054' | 'bai2' | 'mt940' | 'csv', options: { idempotencyKey?: string } = {}): Promise<ResponseOf<'/bank-statements', 'post'>> {
    const contentType = format.startsWith('camt') ? 'application/xml' : format === 'csv' ? 'text/csv' : 'text/plain';
    return (await this.send('post', '/bank-statements', { query: { format } as never, rawBody: file, contentType, idempotencyKey: options.idempotencyKey })).data;
  }
}

function expandPath(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
}

function backoff(baseMs: number, attempt: number): number {
  return Math.min(30_000, baseMs * 2 ** attempt) * (0.8 + Math.random() * 0.4);
}

/** Retry-After as seconds (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: { object: T; previous_attributes?: Partial<T>; [k: string]: unknown };
}

/**
 * Verifies a webhook delivery (Standard Webhooks: HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}"
 * with the base64 key after `whsec_`) and returns the parsed event. `rawBody` must be the exact bytes
 * received. Several secrets (during a rotation) are accepted; any one that verifies is enough.
 * Throws WebhookVerificationError on a bad signature or a timestamp outside the tolerance (replays).
 */
export function verifyWebhook<T = Record<string, unknown>>(
  secret: string | string[],
  headers: Record<string, string | string[] | undefined> | Headers,
  rawBody: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookEvent<T> {
  const header = (name: string): string => {
    const v = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
    const s = Array.isArray(v) ? v[0] : v;
    if (!s) throw new WebhookVerificationError(`missing ${name} header`);
    return s;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('webhook-timestamp outside the tolerance');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const candidates = signatures.split(' ').filter((s) => s.startsWith('v1,')).map((s) => Buffer.from(s.slice(3), 'base64'));
  for (const s of [secret].flat()) {
    const key = Buffer.from(s.startsWith('whsec_') ? s.slice(6) : s, 'base64');
    const expected = createHmac('sha256', key).update(signed).digest();
    if (candidates.some((c) => c.length === expected.length && timingSafeEqual(c, expected))) {
      return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
    }
  }
  throw new WebhookVerificationError('no matching signature');
}
