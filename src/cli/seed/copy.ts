import { Client } from 'pg';

/**
 * `COPY table (columns) FROM STDIN` on a pg Client, without pg-copy-streams: pg accepts any
 * "submittable" object, and COPY needs only four protocol messages (CopyData chunks, CopyDone,
 * then CommandComplete and ReadyForQuery back). Rows arrive as already-encoded text-format
 * lines (see `copyRow`); chunks wait for the socket to drain, so memory stays flat.
 */
interface PgConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
}

class CopyFromQuery {
  rowCount = 0;
  private connection?: PgConnection;
  private ready?: () => void;
  private error?: Error;
  private settle!: { resolve: (n: number) => void; reject: (e: Error) => void };
  readonly copyStarted: Promise<void>;
  readonly done: Promise<number>;

  constructor(readonly text: string) {
    this.copyStarted = new Promise((resolve) => (this.ready = resolve));
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // An error before CopyInResponse must not leave copyStarted hanging.
    this.done.catch(() => this.ready?.());
  }

  submit(connection: PgConnection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyInResponse(): void {
    this.ready?.();
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /COPY (\d+)/.exec(msg.text ?? '');
    if (m) this.rowCount = Number(m[1]);
  }

  handleError(error: Error): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve(this.rowCount);
  }

  // pg calls these for other message types; COPY FROM produces none of them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  async write(chunk: string): Promise<void> {
    if (this.error) throw this.error;
    const connection = this.connection!;
    connection.sendCopyFromChunk(Buffer.from(chunk, 'utf8'));
    if (connection.stream.writableNeedDrain) await new Promise((r) => connection.stream.once('drain', r));
  }

  end(): void {
    this.connection!.endCopyFrom();
  }
}

/**
 * An open `COPY table FROM STDIN`: `push()` buffers lines and sends 1 MB chunks, waiting
 * only when the socket is full, so several COPYs on several connections run side by side.
 */
export class CopyWriter {
  private buffer = '';
  rows = 0;

  private constructor(private readonly query: CopyFromQuery) {}

  static async open(client: Client, table: string, columns: readonly string[]): Promise<CopyWriter> {
    const query = new CopyFromQuery(`COPY ${table} (${columns.join(', ')}) FROM STDIN`);
    (client as unknown as { query(q: unknown): unknown }).query(query);
    await query.copyStarted;
    return new CopyWriter(query);
  }

  /** Resolves at once unless a chunk had to wait for the socket. */
  push(line: string): Promise<void> | undefined {
    this.buffer += line;
    this.rows++;
    if (this.buffer.length < 1 << 20) return undefined;
    const chunk = this.buffer;
    this.buffer = '';
    return this.query.write(chunk);
  }

  async end(): Promise<number> {
    try {
      if (this.buffer) await this.query.write(this.buffer);
    } finally {
      this.buffer = '';
      this.query.end();
    }
    return this.query.done;
  }
}

/** Streams rows into `table` with COPY; `rows` yields text-format lines ending in \n. */
export async function copyFrom(client: Client, table: string, columns: readonly string[], rows: Iterable<string>): Promise<number> {
  const writer = await CopyWriter.open(client, table, columns);
  for (const line of rows) await writer.push(line);
  return writer.end();
}

/** One COPY text-format line: \N for null, backslash escapes for the four special characters. */
export function copyRow(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += '\t';
    line += copyValue(values[i]);
  }
  return `${line}\n`;
}

function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : text;
}
