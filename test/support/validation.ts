import { ValidationError } from '../../src/shared/domain/domain-error';

/** The field a domain ValidationError names; fails the test when `fn` does not throw one. */
export function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).errors?.[0]?.field;
  }
  throw new Error('expected a ValidationError');
}
