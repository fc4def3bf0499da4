import { parse as secureParse } from 'secure-json-parse';
import { ValidationError } from '../domain/domain-error';
import { HttpProblem } from './problem-details.filter';

/**
 * Limits every JSON request body meets before anything else (class-transformer, validation,
 * a handler) sees it; docs/security.md lists them. Nesting and size are bounded here so that
 * recursive code further on (class-transformer, class-validator, JSON.stringify, jsonb) can
 * never be driven into a stack overflow or seconds of work.
 */
export const JSON_LIMITS = {
  /** objects and arrays nested in one another */
  maxDepth: 400,
  /** elements of any one array; routes have tighter per-field limits (request-bounds.ts) */
  maxArrayItems: 1_000,
  /** members of any one object */
  maxObjectMembers: 1_000,
} as const;

const MALFORMED = new HttpProblem('malformed_json', 'The request body is not valid JSON.');

/**
 * A number literal only needs a closer look when it could have lost something on its way to a
 * double: 16 or more digits (up to 15 significant digits always survive, IEEE 754's DBL_DIG) or
 * an exponent (1e400 is Infinity, 1e-400 is 0). Digits inside strings can match too; that only
 * sends a body down the exact (slower) check.
 */
const SUSPECT_NUMBER = /[\d.]{16}|\d[eE][+-]?\d/;
/** A string literal (skipped) or a number literal; run only over text JSON.parse accepted. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;
const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses a JSON request body and enforces what JSON.parse does not:
 * - `__proto__` / `constructor.prototype` keys are refused (prototype poisoning, as Fastify's own parser);
 * - nesting at most `maxDepth`, arrays and objects at most their size limits;
 * - no string or key holds U+0000 or a lone surrogate (PostgreSQL cannot store either, and a
 *   lone surrogate would be silently replaced): they can only arrive as `\u` escapes;
 * - every number is held exactly: a literal whose value a double cannot represent (more than
 *   ~15 significant digits, or out of range) is refused rather than silently rounded, so what
 *   the service computes with (quantities, rates, amounts) is exactly what the client wrote.
 * The common body (small, no escapes, short numbers) costs JSON.parse and two regex tests.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = secureParse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (!/forbidden prototype/.test((error as Error).message)) throw MALFORMED;
    throw ValidationError.field('body', 'The body must not contain __proto__ or constructor.prototype keys.', 'forbidden_key');
  }
  const escapes = text.includes('\\u');
  // A container nested `maxDepth` deep, or an array of `maxArrayItems`, needs at least twice as many characters.
  if (escapes || text.length > 2 * JSON_LIMITS.maxDepth) inspect(value, escapes);
  if (SUSPECT_NUMBER.test(text)) assertExactNumbers(text);
  return value;
}

/** Why a body was refused, and where: the path is built on the way back up, so only on failure. */
class BodyRejection {
  readonly path: Array<string | number> = [];
  constructor(
    readonly code: string,
    readonly message: string,
  ) {}
}

/** Walks the parsed body (recursion bounded by the depth limit itself). */
function inspect(value: unknown, checkStrings: boolean): void {
  const rejection = walk(value, 1, checkStrings);
  if (!rejection) return;
  const field = fieldPath(rejection.path.reverse());
  throw ValidationError.field(field, `${field}: ${rejection.message}`, rejection.code);
}

/** `line_items[3].description`; a path past a few levels (the depth limit's) is cut, a key that is itself refused is not echoed. */
function fieldPath(path: Array<string | number>): string {
  const shown = path.slice(0, 8).map((p) => (typeof p === 'string' && !isStorableText(p) ? '<key>' : p));
  const field = shown.reduce<string>((f, p) => (typeof p === 'number' ? `${f}[${p}]` : f ? `${f}.${p}` : p), '');
  return `${field.slice(0, 120)}${path.length > shown.length || field.length > 120 ? '…' : ''}` || 'body';
}

const INVALID_TEXT = 'text must not contain U+0000 or unpaired surrogates';

function walk(value: unknown, depth: number, checkStrings: boolean): BodyRejection | null {
  if (typeof value === 'string') return checkStrings && !isStorableText(value) ? new BodyRejection('invalid_characters', INVALID_TEXT) : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth > JSON_LIMITS.maxDepth) return new BodyRejection('max_depth', `JSON may nest at most ${JSON_LIMITS.maxDepth} levels deep`);
  if (Array.isArray(value)) {
    if (value.length > JSON_LIMITS.maxArrayItems) return new BodyRejection('max_items', `an array may hold at most ${JSON_LIMITS.maxArrayItems} elements`);
    for (let i = 0; i < value.length; i++) {
      const rejection = walk(value[i], depth + 1, checkStrings);
      if (rejection) return within(rejection, i);
    }
    return null;
  }
  let members = 0;
  for (const key in value) {
    if (++members > JSON_LIMITS.maxObjectMembers) return new BodyRejection('max_members', `an object may hold at most ${JSON_LIMITS.maxObjectMembers} members`);
    const rejection =
      checkStrings && !isStorableText(key) ? new BodyRejection('invalid_characters', INVALID_TEXT) : walk((value as Record<string, unknown>)[key], depth + 1, checkStrings);
    if (rejection) return within(rejection, key);
  }
  return null;
}

/** Adds the segment the rejection was found under (innermost first; `inspect` reverses the path). */
function within(rejection: BodyRejection, segment: string | number): BodyRejection {
  rejection.path.push(segment);
  return rejection;
}

/** U+0000 and lone surrogates: text PostgreSQL cannot store and UTF-8 cannot encode. */
export function isStorableText(text: string): boolean {
  return text.indexOf('\u0000') === -1 && (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function assertExactNumbers(text: string): void {
  for (const [token] of text.matchAll(TOKENS)) {
    if (token.charCodeAt(0) === 0x22 /* " */) continue;
    if (token.length < 16 && !/[eE]/.test(token)) continue;
    if (!isExactNumber(token)) {
      const shown = token.length > 40 ? `${token.slice(0, 37)}...` : token;
      throw ValidationError.field('body', `The number ${shown} cannot be held exactly; send at most 15 significant digits.`, 'inexact_number');
    }
  }
}

/** Whether the double a JSON number literal parses to stands for exactly the literal's decimal value. */
export function isExactNumber(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  return canonicalDecimal(literal) === canonicalDecimal(String(value));
}

/** `-1.50e2` → `-15e1`: sign, significant digits without leading or trailing zeros, exponent. */
function canonicalDecimal(text: string): string {
  const m = NUMBER.exec(text);
  if (!m) return `invalid:${text}`;
  const [, sign, whole, frac = '', exp = '0'] = m;
  let digits = (whole + frac).replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = Number(exp) - frac.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  return `${sign}${digits}e${exponent}`;
}
