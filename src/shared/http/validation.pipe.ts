import { ArgumentMetadata, ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationError } from '../domain/domain-error';
import { assertArrayBounds } from './request-bounds';

function flatten(errors: ClassValidatorError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([code, message]) => ({
      field,
      code: code === 'whitelistValidation' ? 'unknown_field' : code,
      message: code === 'whitelistValidation' ? `${field} is not a known field` : message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Checks a body's array sizes before the (costly) transformation and validation. */
class BoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype) assertArrayBounds(value, metadata.metatype);
    return super.transform(value, metadata);
  }
}

/**
 * Request DTO validation (class-validator): unknown fields are rejected, not dropped,
 * and every failure becomes a `validation_failed` problem with per-field errors.
 */
export function createValidationPipe(): ValidationPipe {
  return new BoundedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      const summary = fieldErrors.map((e) => e.message).slice(0, 3).join('; ');
      return new ValidationError(`The request is not valid: ${summary}.`, fieldErrors);
    },
  });
}
