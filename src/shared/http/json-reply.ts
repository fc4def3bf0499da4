import { randomBytes } from 'node:crypto';

/**
 * The JSON of a response. Plain `JSON.stringify` whenever it can (every response but a huge
 * customer's figures); a value holding a bigint (shared/domain/figure.ts) is written with each
 * bigint as its exact digits, a JSON number of any size (RFC 8259 §6 leaves the range to readers).
 */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
  }
  // A marker no string of ours can contain (NUL is refused in every input and a nonce per call).
  const marker = `\u0000${randomBytes(8).toString('hex')}:`;
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${marker}${v}` : v));
  const quoted = JSON.stringify(marker).slice(0, -1); // `"\u0000<nonce>:` as JSON writes it
  return text.split(quoted).map((part, i) => (i === 0 ? part : part.replace(/^(-?\d+)"/, '$1'))).join('');
}
