import { TypeID } from 'typeid-js';
import { isValidId } from '../../../src/shared/domain/ids';
import { Random } from '../../../src/cli/seed/random';
import { encode, TypeIdFactory } from '../../../src/cli/seed/typeid';

describe('seed TypeIDs', () => {
  it('encodes exactly like typeid-js', () => {
    const random = new Random(7);
    for (let i = 0; i < 200; i++) {
      const bytes = new Uint8Array(16).map(() => random.uint32() & 0xff);
      bytes[0] &= 0xff;
      expect(encode(bytes)).toBe(TypeID.fromUUIDBytes('inv', bytes).getSuffix());
    }
  });

  it('makes valid ids that carry the given time and sort by it', () => {
    const ids = new TypeIdFactory(new Random(1));
    const t0 = Date.parse('2024-03-01T10:00:00Z');
    const a = ids.make('inv', t0);
    const b = ids.make('inv', t0 + 1);
    expect(isValidId(a, 'inv')).toBe(true);
    expect(a < b).toBe(true);
    const uuid = TypeID.fromString(a, 'inv').toUUID().replace(/-/g, '');
    expect(parseInt(uuid.slice(0, 12), 16)).toBe(t0);
    expect(uuid[12]).toBe('7');
  });
});
