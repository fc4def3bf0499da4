import { TypeID, typeidUnboxed } from 'typeid-js';

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

export function newId(prefix: IdPrefix): string {
  return typeidUnboxed(prefix); // the id's text, without a TypeID object around it
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
