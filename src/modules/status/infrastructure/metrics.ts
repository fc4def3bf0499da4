import { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, register, Registry } from 'prom-client';

/**
 * Prometheus metrics: process defaults plus request durations by route template and status.
 * Registered as a Fastify hook so it costs one histogram observation per request.
 */
export function registerMetrics(fastify: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  fastify.get('/metrics', async (_request, reply) => {
    void reply.header('Content-Type', registry.contentType);
    // Business counters (cash application) live in prom-client's default registry, shared by the modules that count.
    return (await registry.metrics()) + (await register.metrics());
  });
  return registry;
}
