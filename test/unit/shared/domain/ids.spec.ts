import { TypeID } from 'typeid-js';
import { ID_PREFIXES, isValidId, newId } from '../../../../src/shared/domain/ids';

describe('ids', () => {
  afterEach(() => jest.useRealTimers());

  it.each(Object.values(ID_PREFIXES))('%s ids carry their prefix and a 26-character base32 body', (prefix) => {
    const id = newId(prefix);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`));
    expect(isValidId(id, prefix)).toBe(true);
  });

  it('are unique', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId('inv')));
    expect(ids.size).toBe(2000);
  });

  it('sort as strings in creation order, across milliseconds and within one', () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push(newId('pay'), newId('pay')); // two in the same millisecond
      jest.advanceTimersByTime(i % 2 === 0 ? 1 : 86_400_000); // a millisecond, then a day
    }
    expect([...ids].sort()).toEqual(ids);
  });

  it('lead with the creation time in milliseconds (UUIDv7), so ids of different processes sort by time too', () => {
    jest.useFakeTimers({ now: new Date('2030-06-01T12:34:56.789Z') });
    const id = newId('cus');
    const uuid = TypeID.fromString(id, 'cus').toUUID();
    expect(parseInt(uuid.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.parse('2030-06-01T12:34:56.789Z'));
  });

  it('stay in creation order when the clock steps back', () => {
    jest.useFakeTimers({ now: new Date('2030-06-01T00:00:00Z') });
    const first = newId('cus');
    jest.setSystemTime(new Date('2030-05-31T23:59:59.000Z'));
    expect(newId('cus') > first).toBe(true);
  });

  it.each<[string, () => string, 'inv']>([
    ['wrong prefix', () => newId('pay'), 'inv'],
    ['no prefix', () => newId('inv').slice(4), 'inv'],
    ['upper case', () => newId('inv').toUpperCase(), 'inv'],
    ['body upper case', () => `inv_${newId('inv').slice(4).toUpperCase()}`, 'inv'],
    ['too short', () => newId('inv').slice(0, -1), 'inv'],
    ['too long', () => `${newId('inv')}0`, 'inv'],
    ['first body char above 7 (overflows 128 bits)', () => `inv_8${newId('inv').slice(5)}`, 'inv'],
    ['letter outside Crockford base32 (u)', () => `${newId('inv').slice(0, -1)}u`, 'inv'],
    ['letter outside Crockford base32 (l)', () => `${newId('inv').slice(0, -1)}l`, 'inv'],
    ['double prefix', () => `inv_${newId('inv')}`, 'inv'],
    ['prefix of another type with the same length', () => `cus_${newId('inv').slice(4)}`, 'inv'],
    ['sql', () => "inv_' OR 1=1 --               ", 'inv'],
    ['empty', () => '', 'inv'],
  ])('isValidId refuses %s', (_name, make, prefix) => {
    expect(isValidId(make(), prefix)).toBe(false);
  });

  it.each([null, undefined, 42, {}, ['inv_01m81fv6z1fqaba71g5rn2hmdn']])('isValidId refuses the non-string %p', (value) => {
    expect(isValidId(value, 'inv')).toBe(false);
  });
});
