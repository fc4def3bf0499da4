import { createHash, Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { HttpProblem } from './problem-details.filter';

/**
 * A request body read as a stream (bank files, contract §14) instead of being buffered and
 * parsed up front: whoever consumes it gets the bytes chunk by chunk, never more than `limit`
 * in all (413 beyond), and a SHA-256 of what was read — the body's fingerprint for
 * `Idempotency-Key` without ever holding the body.
 */
export class StreamedBody implements AsyncIterable<Buffer> {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private consumed = false;
  private digestValue: string | null = null;

  constructor(
    private readonly source: Readable,
    readonly contentType: string,
    private readonly limit: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.consumed) throw new Error('the request body was already read');
    this.consumed = true;
    for await (const chunk of this.source) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      this.bytes += buffer.length;
      if (this.bytes > this.limit) {
        // The client may still be sending: reading stops here and the connection closes after the answer.
        throw new HttpProblem('payload_too_large', `The body exceeds ${this.limit} bytes.`, { connection: 'close' });
      }
      this.hash.update(buffer);
      yield buffer;
    }
    this.digestValue = this.hash.digest('hex');
  }

  /** The SHA-256 of the whole body, reading (and discarding) whatever was not read yet. */
  async digest(): Promise<string> {
    if (this.digestValue !== null) return this.digestValue;
    if (!this.consumed) for await (const _chunk of this) void _chunk;
    if (this.digestValue === null) throw new Error('the request body was not read to its end');
    return this.digestValue;
  }

  get size(): number {
    return this.bytes;
  }
}
