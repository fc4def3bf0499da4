/**
 * A JSON value with its objects' keys in the order PostgreSQL's jsonb keeps them: shorter keys
 * first, keys of one length by their UTF-8 bytes. A value written to a jsonb column reads back
 * in this order, so a response built from what was written (instead of read back) lists its
 * keys as a later read of the same row does.
 */
export function inJsonbOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(inJsonbOrder) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .map((k) => ({ k, bytes: Buffer.from(k, 'utf8') }))
    .sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  // fromEntries defines own properties (a "__proto__" key stays a key, as JSON.parse makes it).
  return Object.fromEntries(keys.map(({ k }) => [k, inJsonbOrder(record[k])])) as T;
}
