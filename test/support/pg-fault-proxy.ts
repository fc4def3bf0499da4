import { AddressInfo, createServer, Server, Socket, connect as tcpConnect } from 'node:net';
import { Client } from 'pg';

/**
 * Where a fault hits a connection: `startup`, the ReadyForQuery that ends its startup (the pool has
 * connected it and is handing it to its first caller); `in-transaction`, the first ReadyForQuery
 * inside a transaction block (a unit of work holds it between two statements); `idle`, a
 * ReadyForQuery outside one (a statement done, e.g. a pooled query about to release its client).
 */
export type FaultPoint = 'startup' | 'in-transaction' | 'idle';

interface Fault {
  applicationName: string;
  at: FaultPoint;
  /** only after a statement whose text matches (sent since the previous ReadyForQuery) */
  after?: RegExp;
  fired: (hit: { pid: number }) => void;
}

/** One proxied connection: what the proxy knows of it. */
interface Link {
  applicationName: string | undefined;
  pid: number | undefined;
  client: Socket;
  server: Socket;
  /** texts of the statements the client sent since the server's last ReadyForQuery */
  texts: string[];
}

/**
 * A TCP proxy in front of PostgreSQL that terminates a chosen backend at a chosen point of the
 * protocol, deterministically: it holds back the server's ReadyForQuery of that point, runs
 * `pg_terminate_backend` on the backend, waits for the server's FATAL 57P01, and passes both on
 * in ONE write. The client therefore reads "statement done, no query running" and the
 * termination in the same chunk, before any promise continuation of its own can run: the 'error'
 * event meets exactly the listeners the client has at that instant (docs/adr/0055).
 * No SSL (the service's test connections use none).
 */
export class PgFaultProxy {
  private readonly faults: Fault[] = [];
  private readonly links = new Set<Link>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(databaseUrl: string): Promise<PgFaultProxy> {
    const target = new URL(databaseUrl);
    let proxy!: PgFaultProxy;
    const server = createServer((socket) => proxy.accept(socket));
    proxy = new PgFaultProxy(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The database URL through the proxy. */
  get url(): string {
    const url = new URL(this.target.toString());
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as AddressInfo).port);
    return url.toString();
  }

  /**
   * Arms one fault for the next connection of `applicationName` that reaches `at`; resolves with
   * the terminated backend's pid once the client has been sent ReadyForQuery and the FATAL together.
   */
  fault(applicationName: string, at: FaultPoint, after?: RegExp): Promise<{ pid: number }> {
    return new Promise((fired) => this.faults.push({ applicationName, at, after, fired }));
  }

  /** Backend pids of the open connections of `applicationName`. */
  pids(applicationName: string): number[] {
    return [...this.links].filter((l) => l.applicationName === applicationName && l.pid !== undefined).map((l) => l.pid!);
  }

  /** Terminates every open backend of `applicationName` the plain way (FATAL, then the socket closes). */
  async terminateAll(applicationName: string): Promise<number> {
    const pids = this.pids(applicationName);
    if (pids.length > 0) await this.terminate(pids);
    return pids.length;
  }

  async close(): Promise<void> {
    for (const l of this.links) {
      l.client.destroy();
      l.server.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async terminate(pids: number[]): Promise<void> {
    const admin = new Client({ connectionString: this.target.toString() });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    } finally {
      await admin.end();
    }
  }

  private accept(client: Socket): void {
    const server = tcpConnect(Number(this.target.port || 5432), this.target.hostname);
    const link: Link = { applicationName: undefined, pid: undefined, client, server, texts: [] };
    this.links.add(link);
    const drop = () => {
      this.links.delete(link);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    // The server's side closing (after a FATAL) ends the client's side once what was written has gone.
    server.on('error', drop).on('close', () => {
      this.links.delete(link);
      client.end();
    });

    // Client to server: read the startup message's application_name and the statements' texts
    // (Query, Parse); forward everything as is.
    let startup: Buffer | null = Buffer.alloc(0);
    let sent: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (startup !== null) {
        startup = Buffer.concat([startup, chunk]);
        if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return;
        const length = startup.readInt32BE(0);
        link.applicationName = startupParameters(startup.subarray(0, length)).application_name;
        server.write(startup);
        sent = startup.subarray(length);
        startup = null;
      } else {
        server.write(chunk);
        sent = Buffer.concat([sent, chunk]);
      }
      let offset = 0;
      while (sent.length - offset >= 5 && sent.length - offset >= 1 + sent.readInt32BE(offset + 1)) {
        const type = String.fromCharCode(sent[offset]);
        const body = sent.subarray(offset + 5, offset + 1 + sent.readInt32BE(offset + 1));
        if (type === 'Q') link.texts.push(body.toString('utf8').split('\0')[0]);
        if (type === 'P') link.texts.push(body.toString('utf8').split('\0')[1]);
        offset += 1 + sent.readInt32BE(offset + 1);
      }
      sent = sent.subarray(offset);
    });

    // Server to client: typed messages; watch BackendKeyData and ReadyForQuery.
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    /** bytes held back while a fault is under way (from its ReadyForQuery on), and whether the FATAL came */
    let held: Buffer[] | null = null;
    server.on('data', (chunk: Buffer) => {
      if (held !== null) {
        held.push(chunk);
        if (containsError(Buffer.concat(held))) release();
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      let offset = 0;
      while (pending.length - offset >= 5) {
        const type = String.fromCharCode(pending[offset]);
        const length = pending.readInt32BE(offset + 1);
        if (pending.length - offset < 1 + length) break;
        const end = offset + 1 + length;
        if (type === 'K') link.pid = pending.readInt32BE(offset + 5);
        if (type === 'Z') {
          const status = String.fromCharCode(pending[offset + 5]);
          const point: FaultPoint = !started ? 'startup' : status === 'T' ? 'in-transaction' : 'idle';
          started = true;
          const texts = link.texts.splice(0);
          const index = this.faults.findIndex((f) => f.at === point && f.applicationName === link.applicationName && (!f.after || texts.some((t) => f.after!.test(t))));
          if (index !== -1) {
            const [fault] = this.faults.splice(index, 1);
            client.write(pending.subarray(0, offset));
            held = [pending.subarray(offset)];
            pending = Buffer.alloc(0);
            const pid = link.pid!;
            release = () => {
              const bytes = Buffer.concat(held!);
              held = null;
              release = () => undefined;
              // ReadyForQuery and the FATAL in one write, so in one read on the other side.
              client.write(bytes, () => fault.fired({ pid }));
            };
            this.terminate([pid]).catch(() => undefined);
            return;
          }
        }
        offset = end;
      }
      if (offset > 0) {
        client.write(pending.subarray(0, offset));
        pending = pending.subarray(offset);
      }
    });
    let release: () => void = () => undefined;
    server.on('end', () => {
      if (held !== null) release();
      client.end();
    });
  }
}

function startupParameters(message: Buffer): Record<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i]) params[parts[i]] = parts[i + 1];
  return params;
}

/** Whether the held bytes (starting at a message boundary) hold a whole ErrorResponse. */
function containsError(bytes: Buffer): boolean {
  let offset = 0;
  while (bytes.length - offset >= 5) {
    const length = bytes.readInt32BE(offset + 1);
    if (bytes.length - offset < 1 + length) return false;
    if (bytes[offset] === 'E'.charCodeAt(0)) return true;
    offset += 1 + length;
  }
  return false;
}
