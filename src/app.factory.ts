import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { IncomingHttpHeaders } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import { AppModule } from './app.module';
import { HttpProblem } from './shared/http/problem-details.filter';
import { CoreOptions } from './shared/infrastructure/core.module';
import { requestIdFor } from './shared/http/request-id';
import { createValidationPipe } from './shared/http/validation.pipe';
import { registerMetrics } from './modules/status/infrastructure/metrics';
import { installLeanReads } from './shared/http/lean-reads';
import { registerSecurityHeaders } from './shared/http/security-headers';
import { toJson } from './shared/http/json-reply';
import { clientErrorHandler, frameworkErrors } from './shared/http/framework-errors';
import { parseJsonBody } from './shared/http/json-body';
import { buildOpenApiDocument, swaggerUiOptions } from './shared/http/openapi';
import { ValidationError } from './shared/domain/domain-error';
import { StreamedBody } from './shared/http/streamed-body';
import { StartupQuietLogger } from './shared/infrastructure/logging/startup-quiet.logger';

export const API_PREFIX = 'api/v1';

const UNSUPPORTED_MEDIA_TYPE = new HttpProblem('unsupported_media_type', 'Send the request body as application/json.');
const FORM_ROUTES = new Set([`/${API_PREFIX}/auth/token`]);
/** Bank files (contract §14) arrive as the bank wrote them, read as a stream (StreamedBody), never buffered. */
const BANK_FILE_ROUTES = new Set([`/${API_PREFIX}/bank-statements`]);
export const BANK_FILE_TYPES = ['application/xml', 'text/xml', 'text/plain', 'text/csv'];
export const BANK_FILE_LIMIT_BYTES = 50 * 1024 * 1024;
const BANK_FILE_TOO_LARGE = new HttpProblem('payload_too_large', `A bank file may be at most ${BANK_FILE_LIMIT_BYTES} bytes.`, { connection: 'close' });
const UNSUPPORTED_BANK_FILE_TYPE = new HttpProblem('unsupported_media_type', `Send the bank file as ${BANK_FILE_TYPES.join(', ')}.`);
const NUL_IN_URL = ValidationError.field('url', 'The URL must not contain U+0000 (%00).', 'invalid_characters');

/** JSON everywhere; the token endpoint also takes form-encoded bodies (RFC 6749), the bank-file import only files. */
function bodyRefusal(method: string, headers: IncomingHttpHeaders, url: string): HttpProblem | undefined {
  if (method !== 'POST' && method !== 'PATCH' && method !== 'PUT') return undefined;
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const path = url.split('?')[0].replace(/\/$/, '');
  if (BANK_FILE_ROUTES.has(path)) {
    if (!BANK_FILE_TYPES.includes(type)) return UNSUPPORTED_BANK_FILE_TYPE;
    // Announced too large: refused before a byte is read (a chunked body is counted as it streams, StreamedBody).
    return Number(headers['content-length'] ?? 0) > BANK_FILE_LIMIT_BYTES ? BANK_FILE_TOO_LARGE : undefined;
  }
  const hasBody = (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;
  if (!hasBody) return undefined;
  if (type === 'application/json' || type.endsWith('+json')) return undefined;
  return type === 'application/x-www-form-urlencoded' && FORM_ROUTES.has(path) ? undefined : UNSUPPORTED_MEDIA_TYPE;
}

/**
 * Builds the HTTP application exactly as production runs it; `main.ts` and the end-to-end
 * tests both use this, so the tests exercise the real pipeline (Fastify, guards, filters).
 */
export async function createApp(options: CoreOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.config.bodyLimitBytes,
    genReqId: requestIdFor,
    trustProxy: options.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors,
    clientErrorHandler,
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(options), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // Our own parsers below: JSON with depth, size, text and exact-number checks (json-body.ts).
    bodyParser: false,
  });
  // Nest's module and route lines at debug (StartupQuietLogger): the banner is the first thing to read.
  app.useLogger(new StartupQuietLogger(app.get(Logger)));

  const fastify = app.getHttpAdapter().getInstance();
  // JSON.stringify, except that a figure beyond 2^53 (a bigint) is written as its exact digits.
  fastify.setReplySerializer((payload) => toJson(payload));
  // helmet's headers, computed once (security-headers.ts) rather than rebuilt per request by @fastify/helmet.
  await registerSecurityHeaders(fastify, {
    // Swagger UI needs inline styles; everything the API returns is JSON, PDF or CSV.
    contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } },
  });
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Only the token endpoint takes forms (acceptsBody); repeated keys become arrays, which it refuses.
  // Bank files: the raw stream, bounded and fingerprinted as it is read (only the import route gets here, bodyRefusal).
  for (const type of BANK_FILE_TYPES) if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  fastify.addContentTypeParser(BANK_FILE_TYPES, (request, payload, done) =>
    done(null, new StreamedBody(payload, (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase(), BANK_FILE_LIMIT_BYTES)),
  );
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(body as string)));
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    // Financial data must not be kept by shared or browser caches (RFC 9111 §5.2.2.5).
    if (request.headers.authorization !== undefined) void reply.header('Cache-Control', 'no-store');
    // A percent-encoded NUL would reach path parameters and filters as U+0000, which PostgreSQL cannot store or compare.
    if (request.url.includes('%00')) return done(NUL_IN_URL);
    done(bodyRefusal(request.method, request.headers, request.url));
  });
  // Once closing, requests still in flight are answered with `Connection: close`: Node closes
  // only connections idle at close time, so a keep-alive client would otherwise hold the
  // drain open until the server's keep-alive timeout (72 s).
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('Connection', 'close');
    done(null, payload);
  });
  registerMetrics(fastify);
  // The hottest GET routes answered by their controllers straight from a Fastify hook (see lean-reads.ts).
  installLeanReads(app, API_PREFIX);

  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
    ],
  });
  app.useGlobalPipes(createValidationPipe());

  SwaggerModule.setup('docs', app, buildOpenApiDocument(app, { version: options.config.version, prefix: API_PREFIX }), {
    ...swaggerUiOptions(),
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    useGlobalPrefix: false,
  });
  return app;
}
