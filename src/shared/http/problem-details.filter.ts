import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/domain-error';
import { databaseFailure, RETRY_AFTER_SECONDS } from '../infrastructure/database/database-errors';
import { problem, PROBLEM_CONTENT_TYPE, ProblemDetails } from './problem';

const STATUS_TO_CODE: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  412: 'precondition_failed',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'service_unavailable',
};

/** An HTTP-level error with extra response headers (WWW-Authenticate, Retry-After). */
export class HttpProblem extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

const logger = new Logger('Errors');

/**
 * Logs what a 5xx does not tell the client. Inside pino-http's request scope every line carries
 * the request_id already; without access logs that scope is not set up (app.module.ts), so the
 * line names its request itself.
 */
function logFailure(error: unknown, requestId: string, scoped: boolean): void {
  const fields = scoped ? {} : { request_id: requestId };
  logger.error({ ...fields, err: error instanceof Error ? error : new Error(String(error)) }, 'request failed');
}

/**
 * Maps anything thrown to RFC 9457 problem+json. Used by the Nest exception filter and by
 * Fastify's own error handler (body parsing, size limits), so framework errors look the same.
 * A 5xx never carries a stack trace or SQL. `scoped`: whether the request has pino-http's logger.
 */
export function toProblem(error: unknown, requestId: string, scoped = false): { body: ProblemDetails; headers: Record<string, string> } {
  if (error instanceof HttpProblem) return { body: problem(error.code, error.detail, requestId), headers: error.headers };
  if (error instanceof DomainError) return { body: problem(error.code, error.message, requestId, error.errors), headers: {} };
  if (error instanceof HttpException) {
    const status = error.getStatus();
    // Fastify's body-parser failures reach Nest as plain HttpExceptions (Nest drops the FST_ code);
    // only the message tells them apart. An empty body declared as JSON is malformed JSON too.
    if (status === 400 && /not valid JSON|Unexpected end of JSON|cannot be empty when content-type is set to 'application\/json'/i.test(error.message)) {
      return { body: problem('malformed_json', 'The request body is not valid JSON.', requestId), headers: {} };
    }
    if (status === 413) {
      return { body: problem('payload_too_large', 'The request body exceeds the size limit.', requestId), headers: {} };
    }
    const code = STATUS_TO_CODE[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
    if (status >= 500) {
      // A 5xx HttpException's message is written for operators (driver errors, hosts): log it, never send it.
      logFailure(error, requestId, scoped);
      return { body: problem(code, status === 503 ? 'The service is temporarily unavailable.' : 'An unexpected error occurred.', requestId), headers: {} };
    }
    const detail = status === 404 ? 'No such resource or route.' : error.message;
    return { body: problem(code, detail, requestId), headers: {} };
  }
  const e = error as { code?: string; statusCode?: number; message?: string; name?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('FST_')) return fastifyProblem(e, requestId);
  if (e?.name === 'SyntaxError' && e.statusCode === 400) {
    return { body: problem('malformed_json', 'The request body is not valid JSON.', requestId), headers: {} };
  }
  if (e?.code === '23505') {
    return { body: problem('conflict', 'The resource conflicts with an existing one.', requestId), headers: {} };
  }
  const failure = databaseFailure(error);
  if (failure) {
    // Logged (the operator must see an outage), answered without detail, retryable (docs/adr/0029).
    logger.warn(`request failed: database ${failure} (${describe(error)})`);
    const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS[failure]) };
    return failure === 'timeout'
      ? { body: problem('database_timeout', 'The database did not complete the request in time; retry it.', requestId), headers }
      : { body: problem('service_unavailable', 'The database is unavailable; retry the request shortly.', requestId), headers };
  }
  if (e?.code === '40001' || e?.code === '40P01') {
    return { body: problem('conflict', 'A concurrent change conflicted with this request; retry it.', requestId), headers: {} };
  }
  logFailure(error, requestId, scoped);
  return { body: problem('internal_error', 'An unexpected error occurred.', requestId), headers: {} };
}

function describe(error: unknown): string {
  // An AggregateError (every address of a host refused) has an empty message of its own.
  const inner = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  const e = inner as { code?: string; message?: string; driverError?: { code?: string; message?: string } };
  const code = e?.code ?? e?.driverError?.code;
  return `${code ? `${code}: ` : ''}${e?.message ?? String(error)}`;
}

function fastifyProblem(e: { code?: string; statusCode?: number; message?: string }, requestId: string) {
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { body: problem('payload_too_large', 'The request body exceeds the 1 MB limit.', requestId), headers: {} };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { body: problem('unsupported_media_type', 'Send the body as application/json.', requestId), headers: {} };
    case 'FST_ERR_BAD_URL':
      return { body: problem('validation_failed', 'The request URL is not valid (bad percent-encoding).', requestId), headers: {} };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { body: problem('uri_too_long', 'A path segment of the URL is longer than 100 characters.', requestId), headers: {} };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { body: problem('malformed_json', 'The request body is not valid JSON.', requestId), headers: {} };
    default: {
      const status = e.statusCode ?? 500;
      const code = STATUS_TO_CODE[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
      return { body: problem(code, status >= 500 ? 'An unexpected error occurred.' : (e.message ?? 'Bad request.'), requestId), headers: {} };
    }
  }
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, error: unknown): void {
  const { body, headers } = toProblem(error, String(request.id), (request.raw as { log?: unknown }).log !== undefined);
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  void reply.status(body.status).header('Content-Type', PROBLEM_CONTENT_TYPE).send(body);
}

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(http.getResponse<FastifyReply>(), http.getRequest<FastifyRequest>(), exception);
  }
}
