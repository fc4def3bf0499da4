import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '../domain/ids';
import { problem, PROBLEM_CONTENT_TYPE } from './problem';
import { sendProblem } from './problem-details.filter';

/**
 * Errors Fastify answers before any route or hook runs (a URL that is not valid
 * percent-encoding, a path segment over `maxParamLength`): answered as problem+json like
 * every other error, with the request id.
 */
export function frameworkErrors(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', request.id);
  sendProblem(reply, request, error);
}

/**
 * Errors Node's HTTP parser raises before there is a request at all (header block over
 * 16 KiB, a malformed request line or header, a request that took too long to arrive): the
 * raw response, as problem+json. The connection is closed afterwards, as Node does.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(clientErrorResponse(error.code));
  socket.destroy(error);
}

export function clientErrorResponse(code: string | undefined): string {
  const requestId = newId('req');
  const [status, body] =
    code === 'HPE_HEADER_OVERFLOW'
      ? [431, problem('headers_too_large', 'The request line and headers exceed 16 KiB.', requestId)]
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, problem('request_timeout', 'The request did not arrive in time.', requestId)]
        : [400, problem('validation_failed', 'The request is not valid HTTP/1.1.', requestId)];
  const json = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${json}`
  );
}
