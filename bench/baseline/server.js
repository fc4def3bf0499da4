'use strict';
/**
 * The raw baseline: a minimal Fastify + pg server running the service's SQL for each
 * benchmarked endpoint, with no framework on top, no authentication and no rate limiting
 * (the tenant comes from an `x-tenant-id` header). What the service does beyond this is
 * the cost the benchmark's ratios measure.
 */
const { createHmac, randomUUID, randomBytes } = require('node:crypto');
// Fastify as the service gets it (a dependency of @nestjs/platform-fastify).
const Fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }));
const { Pool } = require('pg');
const { argon2Verify } = require('./argon2');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10), application_name: 'bench-baseline' });
const app = Fastify({ logger: false });

/** Named statements: pg prepares each once per connection, as a lean service would. */
function q(name, text, values) {
  return pool.query({ name, text, values });
}

app.get('/health', async () => ({ status: 'ok' }));

const jwtKey = randomBytes(32);
const b64 = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

// Token: the same client lookup and argon2id verification as the service, then an HS256 JWT.
app.post('/api/v1/auth/token', async (req, reply) => {
  const { client_id: clientId, client_secret: secret } = req.body ?? {};
  const { rows } = await q('client', 'SELECT tenant_id, id, secret_hash, scopes, revoked_at FROM api_clients WHERE id = $1', [clientId]);
  const client = rows[0];
  if (!client || client.revoked_at || !(await argon2Verify(client.secret_hash, String(secret)))) {
    return reply.code(401).send({ error: 'invalid_client' });
  }
  const now = Math.floor(Date.now() / 1000);
  const scope = client.scopes.join(' ');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ tid: client.tenant_id, scope, iat: now, exp: now + 3600, sub: client.id, jti: randomUUID() })}`;
  const token = `${body}.${createHmac('sha256', jwtKey).update(body).digest('base64url')}`;
  reply.header('cache-control', 'no-store');
  return { access_token: token, token_type: 'Bearer', expires_in: 3600, scope };
});

for (const register of require('./routes')) register(app, q, pool);

app.listen({ port: Number(process.env.PORT ?? 3900), host: '127.0.0.1' }).catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => app.close().then(() => pool.end()).finally(() => process.exit(0)));
