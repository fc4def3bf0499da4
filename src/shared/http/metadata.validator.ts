import { registerDecorator, ValidationOptions } from 'class-validator';

const MAX_KEYS = 50;
const MAX_KEY_LENGTH = 40;
const MAX_VALUE_LENGTH = 500;

/** Stripe-style metadata: a flat object of at most 50 keys with short scalar values. */
export function isMetadata(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value as Record<string, unknown>);
  return (
    entries.length <= MAX_KEYS &&
    entries.every(
      ([k, v]) =>
        k.length > 0 &&
        k.length <= MAX_KEY_LENGTH &&
        (v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= MAX_VALUE_LENGTH)),
    )
  );
}

export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `$property must be an object of at most ${MAX_KEYS} keys (${MAX_KEY_LENGTH} characters) with string (${MAX_VALUE_LENGTH} characters), number, boolean or null values`,
        ...options,
      },
      validator: { validate: isMetadata },
    });
}

/** Fields a client may read but never write (`amount_paid`, `total`, ...): sending one is a 400. */
export function ReadOnly(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'readOnly',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property is read-only', ...options },
      validator: { validate: (value: unknown) => value === undefined },
    });
}
