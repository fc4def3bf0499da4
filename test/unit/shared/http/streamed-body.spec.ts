import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { StreamedBody } from '../../../../src/shared/http/streamed-body';

describe('StreamedBody', () => {
  const body = (chunks: string[], limit: number) => new StreamedBody(Readable.from(chunks.map((c) => Buffer.from(c))), 'text/csv', limit);

  it('passes the bytes through and fingerprints them without holding them', async () => {
    const b = body(['abc', 'def'], 10);
    const seen: string[] = [];
    for await (const chunk of b) seen.push(chunk.toString());
    expect(seen).toEqual(['abc', 'def']);
    expect(await b.digest()).toBe(createHash('sha256').update('abcdef').digest('hex'));
    expect(b.size).toBe(6);
  });

  it('refuses a body over its limit as it streams (413), whatever its chunks', async () => {
    const b = body(['abcd', 'efgh', 'ijkl'], 10);
    const read = async () => {
      for await (const _ of b) void _;
    };
    await expect(read()).rejects.toMatchObject({ code: 'payload_too_large', headers: { connection: 'close' } });
  });

  it('digests an unread body by reading it (an idempotent replay)', async () => {
    expect(await body(['x', 'y'], 10).digest()).toBe(createHash('sha256').update('xy').digest('hex'));
  });
});
