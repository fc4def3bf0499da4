import { applyDecorators, Type } from '@nestjs/common';
import { getMetadataStorage, IsInt, Max, Min } from 'class-validator';
import { MAX_AMOUNT } from '../domain/money';
import { ValidationError } from '../domain/domain-error';

// class-transformer keeps @Type() targets here; @nestjs/mapped-types reads the same storage.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: { findTypeMetadata(target: Function, property: string): { typeFunction: () => Function } | undefined };
};

/**
 * An amount in minor units as a client may send it (contract §1): an integer of at most 10^12 in
 * size, so that no sum the service computes can leave the exact integer range of a JSON number.
 * `min` where the request itself fixes the sign; otherwise the domain's own rules say more.
 */
export function IsAmount(min = -MAX_AMOUNT): PropertyDecorator {
  return applyDecorators(
    IsInt(),
    Min(min),
    Max(MAX_AMOUNT, { message: `$property must be at most ${MAX_AMOUNT} minor units (10^12)` }),
  );
}

interface Bound {
  property: string;
  /** the property's @ArrayMaxSize */
  maxItems?: number;
  /** the @Type() of a nested DTO (or of an array's elements) */
  nested?: Function;
}

const plans = new WeakMap<Function, Bound[]>();

/** What to check of a DTO class, read once from its own decorators. */
function planFor(type: Function): Bound[] {
  let plan = plans.get(type);
  if (plan) return plan;
  const byProperty = new Map<string, Bound>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(type, '', true, false)) {
    const bound = byProperty.get(meta.propertyName) ?? { property: meta.propertyName };
    if (meta.name === 'arrayMaxSize') bound.maxItems = meta.constraints[0] as number;
    if (meta.type === 'nestedValidation') bound.nested = defaultMetadataStorage.findTypeMetadata(type, meta.propertyName)?.typeFunction();
    byProperty.set(meta.propertyName, bound);
  }
  plan = [...byProperty.values()].filter((b) => b.maxItems !== undefined || b.nested !== undefined);
  plans.set(type, plan);
  return plan;
}

/**
 * The DTO's array limits (@ArrayMaxSize), checked on the raw body before class-transformer and
 * class-validator touch it: an array of 10,000 line items is refused for its length, not after
 * 10,000 objects were built and validated (ADR 20). Costs a map lookup for DTOs without arrays.
 */
export function assertArrayBounds(value: unknown, type: Type<unknown> | Function, path = ''): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const bound of planFor(type)) {
    const field = `${path}${bound.property}`;
    const v = (value as Record<string, unknown>)[bound.property];
    if (bound.maxItems !== undefined && Array.isArray(v) && v.length > bound.maxItems) {
      throw ValidationError.field(field, `${field} must contain at most ${bound.maxItems} elements`, 'arrayMaxSize');
    }
    if (!bound.nested) continue;
    if (Array.isArray(v)) v.forEach((item, i) => assertArrayBounds(item, bound.nested!, `${field}[${i}].`));
    else assertArrayBounds(v, bound.nested, `${field}.`);
  }
}
