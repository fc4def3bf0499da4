import { FastifyReply, FastifyRequest } from 'fastify';
import { Page } from '../domain/pagination';

/** `Link: <...>; rel="next"` (RFC 8288) to the same query with the next cursor (contract §5). */
export function setNextLink(request: FastifyRequest, reply: FastifyReply, page: Page<unknown>): void {
  if (!page.next_cursor) return;
  const url = new URL(request.url, 'http://localhost');
  url.searchParams.set('cursor', page.next_cursor);
  void reply.header('Link', `<${url.pathname}${url.search}>; rel="next"`);
}
