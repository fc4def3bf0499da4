import { FastifyInstance } from 'fastify';

type HelmetMiddleware = (req: unknown, res: unknown, next: (err?: unknown) => void) => void;
type Helmet = (options: Record<string, unknown>) => HelmetMiddleware;

/**
 * The security headers helmet sets, computed once at startup and then set as a constant
 * on every response. @fastify/helmet rebuilds helmet's whole middleware chain (parsing the
 * CSP directives again) for each request; with a fixed configuration and no CSP nonces the
 * headers never change, so that work bought nothing but CPU (about a tenth of a lean GET in
 * the profile). Same library, same options, same headers.
 */
export async function registerSecurityHeaders(fastify: FastifyInstance, options: Record<string, unknown>): Promise<Record<string, string>> {
  const headers = await computeHeaders(options);
  const names = Object.keys(headers);
  fastify.addHook('onRequest', (_request, reply, done) => {
    for (const name of names) reply.header(name, headers[name]);
    done();
  });
  return headers;
}

export function computeHeaders(options: Record<string, unknown>): Promise<Record<string, string>> {
  // helmet itself, as @fastify/helmet resolves it (it is that plugin's dependency).
  const helmetPath = require.resolve('helmet', { paths: [require.resolve('@fastify/helmet')] });
  const helmetModule = require(helmetPath) as Helmet | { default: Helmet };
  const helmet = typeof helmetModule === 'function' ? helmetModule : helmetModule.default;
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name];
    },
    getHeader: (name: string) => headers[name],
  };
  return new Promise((resolve, reject) => helmet(options)({ headers: {}, method: 'GET', url: '/' }, res, (err) => (err ? reject(err) : resolve(headers))));
}
