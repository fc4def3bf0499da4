import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** parsed body */
  event: { id: string; type: string; created_at: string; data: { object: any; previous_attributes?: any; reminder?: { days: number; sequence: number } } };
  /** 1 for the first request this path received */
  n: number;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** answer only after this long */
  delayMs?: number;
  /** never answer (the connection stays open until the receiver closes) */
  hang?: boolean;
}

export type Behaviour = (request: ReceivedWebhook) => Reply | Promise<Reply>;

/**
 * A real HTTP server on loopback that records every webhook it receives. Each path can be
 * given its own behaviour (status, delay, Retry-After, hanging), so one receiver plays several
 * endpoints in a test.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => void receiver!.handle(req, res));
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** How `path` answers from now on (default: 200). */
  on(path: string, behaviour: Behaviour): this {
    this.behaviours.set(path, behaviour);
    return this;
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `predicate` holds for what was received; rejects after `timeoutMs`. */
  async waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs = 20_000, what = 'webhooks'): Promise<ReceivedWebhook[]> {
    if (predicate(this.received)) return this.received;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate(this.received)) return;
        cleanup();
        resolve(this.received);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${this.received.length}: ${this.summary()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Waits for `count` requests on `path`. */
  waitForCount(path: string, count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    return this.waitFor(() => this.at(path).length >= count, timeoutMs, `${count} request(s) on ${path}`).then(() => this.at(path));
  }

  /** Verifies a request's signature the way a receiver would, with the standardwebhooks library. */
  static verify(request: ReceivedWebhook, secret: string): unknown {
    return new Webhook(secret).verify(request.body, request.headers);
  }

  summary(): string {
    return this.received
      .slice(-10)
      .map((r) => `${r.path}:${r.event?.type}`)
      .join(', ');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    const n = (this.counts.get(path) ?? 0) + 1;
    this.counts.set(path, n);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    let event: ReceivedWebhook['event'];
    try {
      event = JSON.parse(body);
    } catch {
      event = undefined as never;
    }
    const request: ReceivedWebhook = { path, headers, body, event, n, at: Date.now() };
    this.received.push(request);
    this.waiters.forEach((w) => w());
    const reply: Reply = await (this.behaviours.get(path) ?? (() => ({})))(request);
    if (reply.hang) return;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
    res.end('ok');
  }
}
