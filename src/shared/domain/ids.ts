import { fromUUIDBytes, TypeID } from 'typeid-js';

/**
 * Prefixed, time-sortable ids (TypeID: a type prefix and a UUIDv7 in base32), e.g.
 * `inv_01jc9x7m3ef0ab6yr2t0n4q8zd`. Sorting ids as strings sorts them by creation time.
 */
export const ID_PREFIXES = {
  tenant: 'ten',
  client: 'cli',
  customer: 'cus',
  invoice: 'inv',
  lineItem: 'li',
  payment: 'pay',
  application: 'app',
  writeOff: 'wo',
  creditNote: 'cn',
  creditApplication: 'cna',
  refund: 'ref',
  webhook: 'wh',
  event: 'evt',
  delivery: 'whd',
  ledgerEntry: 'led',
  request: 'req',
  bankStatement: 'bst',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/**
 * The UUIDv7 generator typeid-js itself uses (`uuid`, its dependency, as it resolves it): ids keep
 * its monotonic order within a millisecond.
 */
const { v7 } = require(require.resolve('uuid', { paths: [require.resolve('typeid-js')] })) as { v7(options: undefined, buffer: Uint8Array): Uint8Array };

/**
 * A new id's text: what typeid-js's `typeidUnboxed(prefix)` returns — a UUIDv7 in its base32 —
 * without that function's checks of the prefix and of the suffix it has just made (decoding it
 * again cost as much as making it; a bank import makes ~8 ids per entry, ADR 0053). The prefixes
 * are ID_PREFIXES' own.
 */
export function newId(prefix: IdPrefix): string {
  const bytes = new Uint8Array(16);
  v7(undefined, bytes);
  return fromUUIDBytes(prefix, bytes);
}

/** True when `value` is a well-formed id with the given prefix. Malformed ids are answered 404 by callers. */
export function isValidId(value: unknown, prefix: IdPrefix): value is string {
  if (typeof value !== 'string' || value.length !== prefix.length + 27) return false;
  try {
    TypeID.fromString(value, prefix);
    return true;
  } catch {
    return false;
  }
}
