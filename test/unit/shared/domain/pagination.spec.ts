import fc from 'fast-check';
import { ValidationError } from '../../../../src/shared/domain/domain-error';
import { decodeCursor, encodeCursor, fingerprint, parseSort } from '../../../../src/shared/domain/pagination';

function errorOf(work: () => unknown): ValidationError {
  try {
    work();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('pagination', () => {
  const f = fingerprint({ status: 'open', sort: '-created_at' });

  it('a cursor round-trips its payload and is URL-safe', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), fc.string({ minLength: 1 }), (v, id) => {
        const cursor = encodeCursor({ v, id, f });
        expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(decodeCursor(cursor, f)).toEqual({ v, id, f });
      }),
    );
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['empty', ''],
    ['JSON null', Buffer.from('null').toString('base64url')],
    ['an array', Buffer.from('[1,2]').toString('base64url')],
    ['missing id', Buffer.from(JSON.stringify({ v: 1, f: 'x' })).toString('base64url')],
    ['an object as value', Buffer.from(JSON.stringify({ v: { $gt: 1 }, id: 'inv_1', f: 'x' })).toString('base64url')],
    ['a numeric id', Buffer.from(JSON.stringify({ v: 1, id: 5, f: 'x' })).toString('base64url')],
  ])('a tampered cursor (%s) is a validation error on the cursor field', (_name, cursor) => {
    const error = errorOf(() => decodeCursor(cursor, f));
    expect(error.errors?.[0]).toMatchObject({ field: 'cursor', code: 'invalid' });
  });

  it('a flipped character in a real cursor never decodes to another payload silently', () => {
    const cursor = encodeCursor({ v: '2026-01-01T00:00:00.000Z', id: 'inv_01m81fv6z1fqaba71g5rn2hmdn', f });
    const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    let decoded: unknown;
    try {
      decoded = decodeCursor(tampered, f);
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return;
    }
    expect(decoded).not.toEqual({ v: '2026-01-01T00:00:00.000Z', id: 'inv_01m81fv6z1fqaba71g5rn2hmdn', f });
  });

  it('a cursor made for other filters or another sort is refused with cursor_mismatch', () => {
    const cursor = encodeCursor({ v: 1, id: 'inv_1', f });
    const other = fingerprint({ status: 'paid', sort: '-created_at' });
    const error = errorOf(() => decodeCursor(cursor, other));
    expect(error.code).toBe('validation_failed');
    expect(error.errors?.[0]).toMatchObject({ field: 'cursor', code: 'cursor_mismatch' });
    expect(() => decodeCursor(cursor, fingerprint({ status: 'open', sort: 'created_at' }))).toThrow(ValidationError);
  });

  describe('fingerprint', () => {
    it('ignores key order, cursor, limit and undefined filters', () => {
      expect(fingerprint({ sort: '-created_at', status: 'open' })).toBe(f);
      expect(fingerprint({ status: 'open', sort: '-created_at', limit: 10, cursor: 'abc', q: undefined })).toBe(f);
    });

    it('tells apart different values, different keys and types', () => {
      const seen = new Set([
        fingerprint({}),
        fingerprint({ status: 'open' }),
        fingerprint({ status: 'paid' }),
        fingerprint({ customer_id: 'open' }),
        fingerprint({ amount: 1 }),
        fingerprint({ amount: '1' }),
        fingerprint({ status: null }),
      ]);
      expect(seen.size).toBe(7);
    });
  });

  describe('parseSort', () => {
    const allowed = ['created_at', 'due_date', 'total'] as const;

    it('reads the direction from the prefix and defaults to -created_at', () => {
      expect(parseSort(undefined, allowed)).toEqual({ field: 'created_at', direction: 'desc' });
      expect(parseSort('due_date', allowed)).toEqual({ field: 'due_date', direction: 'asc' });
      expect(parseSort('-total', allowed)).toEqual({ field: 'total', direction: 'desc' });
      expect(parseSort('+total', allowed)).toEqual({ field: 'total', direction: 'asc' });
      expect(parseSort(undefined, allowed, 'due_date')).toEqual({ field: 'due_date', direction: 'asc' });
    });

    it.each(['', 'name', '--total', '-', 'total,due_date', 'TOTAL', ' total'])('refuses %p on the sort field', (value) => {
      const error = errorOf(() => parseSort(value, allowed));
      expect(error.errors?.[0].field).toBe('sort');
    });
  });
});
