import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/config';
import { CreateClientCommand, CreatedClient, CreateTenantCommand } from '../../src/modules/auth';
import { Clock } from '../../src/shared/domain/clock';
import { TransactionalCommandBus } from '../../src/shared/infrastructure/database/transactional-command-bus';
import { createTestDatabase } from './database';
import { OPENAPI_PATH, OpenApiContract } from './openapi-contract';

/** One per test file (jest gives each file its own module registry); the document itself is cached per run. */
let sharedContract: Promise<OpenApiContract> | undefined;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** sent as-is instead of JSON */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /**
   * Why this response is not checked against the OpenAPI document (see openapi-contract.ts);
   * only for requests that deliberately leave the contract, e.g. a raw protocol probe.
   */
  unchecked?: string;
}

export interface TestTenant extends CreatedClient {
  token: string;
}

/**
 * The real application (Fastify, guards, filters, PostgreSQL) on a fresh database,
 * listening on a loopback port; tests talk to it over HTTP like any client.
 */
export class TestApp {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly baseUrl: string,
    readonly databaseUrl: string,
    private readonly dropDatabase: () => Promise<void>,
    /** every route the application registered with Fastify (method, URL), e.g. for the OpenAPI completeness test */
    readonly routes: ReadonlyArray<{ method: string; url: string }>,
  ) {}

  /**
   * `databaseUrl` runs this instance on another TestApp's database (several instances of the
   * service on one database); that database is then left for its owner to drop.
   */
  static async start(options: { env?: Record<string, string>; clock?: Clock; databaseUrl?: string } = {}): Promise<TestApp> {
    const db = options.databaseUrl ? { url: options.databaseUrl, drop: async () => undefined } : await createTestDatabase();
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      DB_POOL_SIZE: '8',
      ...options.env,
    });
    const app = await createApp({ config, databaseUrl: db.url, clock: options.clock });
    // Nest registers controller routes on init (inside listen), so this hook sees all of them.
    const routes: { method: string; url: string }[] = [];
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) routes.push({ method: String(method), url: route.url });
      });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return new TestApp(app, `http://127.0.0.1:${port}`, db.url, db.drop, routes);
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.dropDatabase();
  }

  get dataSource(): DataSource {
    return this.app.get(DataSource);
  }

  query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.dataSource.query(sql, params);
  }

  /** A new tenant with one client (all scopes unless given) and a bearer token for it. */
  async createTenant(name = 'Acme', scopes?: string): Promise<TestTenant> {
    const created = await this.app.get(TransactionalCommandBus).execute<CreatedClient>(new CreateTenantCommand(name, scopes));
    return { ...created, token: await this.token(created.client_id, created.client_secret) };
  }

  async createClient(tenantId: string, scopes?: string, rateLimit?: number): Promise<TestTenant> {
    const created = await this.app
      .get(TransactionalCommandBus)
      .execute<CreatedClient>(new CreateClientCommand(tenantId, scopes, rateLimit));
    return { ...created, token: await this.token(created.client_id, created.client_secret) };
  }

  async token(clientId: string, clientSecret: string, scope?: string): Promise<string> {
    const res = await this.request('POST', '/api/v1/auth/token', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) },
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
    return res.body.access_token;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text ? JSON.parse(text) : text;
    if (!options.unchecked && method !== 'HEAD' && method !== 'OPTIONS') {
      const contract = await this.contract();
      const mismatches = contract.check({ method, url: path, status: res.status, contentType: res.headers.get('content-type'), text, body: parsed });
      if (mismatches.length > 0) {
        throw new Error(`The response does not match the served OpenAPI document (${OPENAPI_PATH}):\n  ${mismatches.join('\n  ')}`);
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** The served OpenAPI document every response is checked against (once per run, see openapi-contract.ts). */
  contract(): Promise<OpenApiContract> {
    sharedContract ??= OpenApiContract.load(this.baseUrl).catch((e) => {
      sharedContract = undefined;
      throw e;
    });
    return sharedContract;
  }

  get<T = any>(path: string, token?: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { token, headers });
  }

  post<T = any>(path: string, body: unknown, token?: string, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { token, body, headers });
  }

  patch<T = any>(path: string, body: unknown, token?: string, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, { token, body, headers });
  }

  delete<T = any>(path: string, token?: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, { token, headers });
  }
}

/** Asserts an RFC 9457 problem response with the given status and code. */
export function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) });
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}
