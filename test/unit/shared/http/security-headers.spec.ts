import fastifyHelmet from '@fastify/helmet';
import Fastify from 'fastify';
import { computeHeaders, registerSecurityHeaders } from '../../../../src/shared/http/security-headers';

const OPTIONS = { contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } } };
const PLAIN = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

describe('security headers computed once', () => {
  it('are exactly the headers @fastify/helmet sets per request, with the same options', async () => {
    const reference = Fastify();
    await reference.register(fastifyHelmet as never, OPTIONS);
    reference.get('/', async () => ({}));
    const expected = Object.fromEntries(Object.entries((await reference.inject('/')).headers).filter(([k]) => !PLAIN.has(k)));

    const ours = Fastify();
    await registerSecurityHeaders(ours, OPTIONS);
    ours.get('/', async () => ({}));
    const actual = Object.fromEntries(Object.entries((await ours.inject('/')).headers).filter(([k]) => !PLAIN.has(k)));

    expect(Object.keys(expected).length).toBeGreaterThan(8);
    expect(actual).toEqual(expected);
    expect((await computeHeaders(OPTIONS))['Content-Security-Policy']).toContain("style-src 'self' 'unsafe-inline'");
  });
});
