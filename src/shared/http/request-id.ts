import { IncomingMessage } from 'node:http';
import { newId } from '../domain/ids';

const ACCEPTABLE = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Echoes a sane client `X-Request-Id`, otherwise makes one. */
export function requestIdFor(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  const id = typeof header === 'string' && ACCEPTABLE.test(header) ? header : newId('req');
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
