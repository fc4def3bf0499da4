import fc from 'fast-check';
import { ValidationError } from '../../../../src/shared/domain/domain-error';
import { isExactNumber, isStorableText, JSON_LIMITS, parseJsonBody } from '../../../../src/shared/http/json-body';
import { HttpProblem } from '../../../../src/shared/http/problem-details.filter';

function rejection(text: string): { field: string; code: string } {
  try {
    parseJsonBody(text);
  } catch (error) {
    if (error instanceof ValidationError) return { field: error.errors![0].field, code: error.errors![0].code };
    if (error instanceof HttpProblem) return { field: 'body', code: error.code };
    throw error;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

describe('parseJsonBody', () => {
  it('parses ordinary bodies like JSON.parse', () => {
    const body = { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', line_items: [{ description: 'Widgets', quantity: 1.5, unit_amount: 1250, tax_rate: 8.25 }] };
    expect(parseJsonBody(JSON.stringify(body))).toEqual(body);
    expect(parseJsonBody('{"a":"caf\\u00e9 \\ud83d\\ude00"}')).toEqual({ a: 'café 😀' });
  });

  it('answers malformed JSON (and an empty body) as malformed_json', () => {
    expect(rejection('{"a":')).toEqual({ field: 'body', code: 'malformed_json' });
    expect(rejection('')).toEqual({ field: 'body', code: 'malformed_json' });
  });

  it('refuses prototype poisoning keys', () => {
    expect(rejection('{"__proto__":{"admin":true}}').code).toBe('forbidden_key');
    expect(rejection('{"constructor":{"prototype":{"admin":true}}}').code).toBe('forbidden_key');
  });

  describe('nesting depth', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    it(`accepts ${JSON_LIMITS.maxDepth} levels and refuses one more`, () => {
      expect(() => parseJsonBody(nested(JSON_LIMITS.maxDepth))).not.toThrow();
      expect(rejection(nested(JSON_LIMITS.maxDepth + 1)).code).toBe('max_depth');
    });
    it('refuses 100,000 levels without overflowing the stack, naming a shortened path', () => {
      const r = rejection(`{"metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`);
      expect(r.code).toBe('max_depth');
      expect(r.field.startsWith('metadata.a.a')).toBe(true);
      expect(r.field.length).toBeLessThan(130);
    });
  });

  it('refuses arrays and objects over their size limits, naming the field', () => {
    const items = (n: number) => JSON.stringify({ line_items: Array.from({ length: n }, () => 1) });
    expect(() => parseJsonBody(items(JSON_LIMITS.maxArrayItems))).not.toThrow();
    expect(rejection(items(JSON_LIMITS.maxArrayItems + 1))).toEqual({ field: 'line_items', code: 'max_items' });
    const members = Object.fromEntries(Array.from({ length: JSON_LIMITS.maxObjectMembers + 1 }, (_, i) => [`k${i}`, i]));
    expect(rejection(JSON.stringify({ metadata: members }))).toEqual({ field: 'metadata', code: 'max_members' });
  });

  describe('text PostgreSQL cannot store', () => {
    it.each([
      ['U+0000 in a value', '{"name":"a\\u0000b"}', 'name'],
      ['a lone high surrogate', '{"name":"a\\ud800b"}', 'name'],
      ['a lone low surrogate', '{"items":[{"d":"\\udc00"}]}', 'items[0].d'],
      ['U+0000 in a key', '{"metadata":{"k\\u0000":1}}', 'metadata.<key>'],
      ['U+0000 as the whole body', '"\\u0000"', 'body'],
    ])('%s', (_label, text, field) => {
      expect(rejection(text)).toEqual({ field, code: 'invalid_characters' });
    });
    it('but an escaped backslash followed by u0000 is ordinary text', () => {
      expect(parseJsonBody('{"a":"\\\\u0000"}')).toEqual({ a: '\\u0000' });
    });
  });

  describe('exact numbers', () => {
    it.each(['1.00000000000000001', '0.1000000000000000055511151231257827', '12345678901234567', '1e400', '-1e400', '1e-400', '2.50000000000000001'])(
      'refuses %s, which a double cannot hold',
      (literal) => {
        expect(rejection(`{"line_items":[{"quantity":${literal}}]}`).code).toBe('inexact_number');
      },
    );

    it.each(['0.1', '1.5', '8.875', '1000000000000', '1.0000000000000000', '1e3', '1.5E+2', '-0', '9007199254740991', '123456789012345.5'])(
      'accepts %s, held exactly',
      (literal) => {
        expect(parseJsonBody(`{"q":${literal}}`)).toEqual({ q: JSON.parse(literal) });
      },
    );

    it('is not fooled by long digit runs inside strings', () => {
      expect(parseJsonBody('{"reference":"12345678901234567890 1e999","amount":5}')).toEqual({ reference: '12345678901234567890 1e999', amount: 5 });
    });

    it('accepts exactly the literals whose double prints back as the same decimal (property)', () => {
      fc.assert(
        fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
          const literal = String(d).replace('e+', 'e');
          expect(isExactNumber(literal)).toBe(true);
          if (d === 0) return;
          // 19 or more significant digits ending in 1: more than any double's shortest form (17).
          const [mantissa, exponent] = literal.split('e');
          const longer = `${mantissa}${mantissa.includes('.') ? '' : '.'}000000000000000001${exponent === undefined ? '' : `e${exponent}`}`;
          expect(isExactNumber(longer)).toBe(false);
        }),
        { seed: 4217, numRuns: 2_000 },
      );
    });
  });

  it('isStorableText', () => {
    expect(isStorableText('Zakład Łódź 😀')).toBe(true);
    expect(isStorableText('a\u0000')).toBe(false);
    expect(isStorableText('\ud83d')).toBe(false);
  });
});
