import { Injectable, PipeTransform, Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { RateLimitService } from '../infrastructure/rate-limit/rate-limit.service';
import { AuthenticatedClient } from './authenticated-client';
import { sendProblem } from './problem-details.filter';
import { countRequest } from './rate-limit.guard';
import { RequestAuthenticator } from './request-authenticator';
import { assertScopes, REQUIRED_SCOPES } from './scopes';
import { createValidationPipe } from './validation.pipe';

/**
 * The lean read path. The hottest GET endpoints (an invoice, invoice lists, a customer, a
 * statement) are still declared, documented and served by their Nest controllers, but a
 * request for one of them is answered one step earlier, in a Fastify preHandler hook, by the
 * same controller method: the hook runs the same checks as the global guards, in the same
 * order (who is calling, how often, may they), validates the query with the same pipe, and
 * maps errors with the same problem+json function. What it skips is the per-request machinery
 * of Nest's router (execution context, guard/interceptor/pipe chains, rxjs, the query bus'
 * dispatch), which the profile showed costing about three times the raw server's whole
 * request (docs/benchmarks.md).
 *
 * Fastify's own hooks (request id, helmet, request logging, metrics) run as for every route.
 */
export interface LeanRead<Q extends object = Record<string, string | undefined>> {
  /** the route as the controller declares it, without the global prefix, e.g. `/invoices/:id` */
  path: string;
  /** the controller method the route's decorators are on: its @RequireScopes apply here too */
  method: (...args: never[]) => unknown;
  /** the controller's @Query() DTO, validated by the global validation pipe */
  query?: Type<Q>;
  /** Answers only when this returns true; otherwise Nest serves the request (e.g. a PDF statement). */
  accepts?: (request: FastifyRequest) => boolean;
  handle(client: AuthenticatedClient, request: FastifyRequest, reply: FastifyReply, query: Q): Promise<unknown>;
}

@Injectable()
export class LeanReadRegistry {
  private readonly routes = new Map<string, LeanRead<object>>();

  /** Controllers call this from onModuleInit for their hot GET routes. */
  register<Q extends object>(route: LeanRead<Q>): void {
    // Fail closed: a route whose scopes sit elsewhere (e.g. on the class) must not skip them here.
    const scopes: unknown = Reflect.getMetadata(REQUIRED_SCOPES, route.method);
    if (!Array.isArray(scopes) || scopes.length === 0) throw new Error(`lean read ${route.path}: its method needs @RequireScopes`);
    this.routes.set(route.path, route as unknown as LeanRead<object>);
  }

  find(path: string): LeanRead<object> | undefined {
    return this.routes.get(path);
  }
}

/** Adds the preHandler hook; call before the application initialises (before routes exist). */
export function installLeanReads(app: NestFastifyApplication, prefix: string): void {
  const fastify = app.getHttpAdapter().getInstance();
  let deps: { registry: LeanReadRegistry; auth: RequestAuthenticator; limits: RateLimitService; config: AppConfig; pipe: PipeTransform } | undefined;
  const resolve = () =>
    (deps ??= {
      registry: app.get(LeanReadRegistry),
      auth: app.get(RequestAuthenticator),
      limits: app.get(RateLimitService),
      config: app.get<AppConfig>(APP_CONFIG),
      pipe: createValidationPipe(),
    });
  const start = `/${prefix.replace(/^\/+|\/+$/g, '')}`;

  fastify.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.routeOptions.url;
    if (request.method !== 'GET' || !url?.startsWith(start)) return;
    const d = resolve();
    const route = d.registry.find(url.slice(start.length));
    if (!route || (route.accepts && !route.accepts(request))) return;
    try {
      // JwtAuthGuard, RateLimitGuard, ScopesGuard, in that order.
      const client = await d.auth.authenticate(request.headers.authorization);
      (request as FastifyRequest & { user?: AuthenticatedClient }).user = client;
      await countRequest(d.limits, d.config, client, false, request as { rateLimit?: never }, reply);
      assertScopes(client, Reflect.getMetadata(REQUIRED_SCOPES, route.method));
      const query = route.query ? await d.pipe.transform(request.query ?? {}, { type: 'query', metatype: route.query }) : (request.query as object);
      const body = await route.handle(client, request, reply, query);
      return reply.send(body);
    } catch (error) {
      sendProblem(reply, request, error);
      return reply;
    }
  });
}
