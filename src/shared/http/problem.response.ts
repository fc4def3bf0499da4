import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { STATUS_BY_CODE } from './problem';

/**
 * The OpenAPI description of every error body (RFC 9457, contract §4), for `@ApiResponse({
 * type: ProblemResponse })` in any module. Swagger keys schemas by class name, so modules that
 * declare their own `ProblemResponse` overwrite each other in the document: use this one.
 */
export class FieldErrorResponse {
  @ApiProperty({ example: 'currency' }) field: string;
  @ApiProperty({ example: 'isString' }) code: string;
  @ApiProperty({ example: 'currency must be a string' }) message: string;
}

export class ProblemResponse {
  @ApiProperty({ example: '/problems/validation_failed' }) type: string;
  @ApiProperty({ example: 'Validation failed' }) title: string;
  @ApiProperty({ example: 400 }) status: number;
  @ApiProperty({ example: 'The request is not valid: currency must be a string.' }) detail: string;
  @ApiProperty({ example: 'validation_failed', enum: Object.keys(STATUS_BY_CODE) }) code: string;
  @ApiProperty({ example: 'req_01jc9x7m3ef0ab6yr2t0n4q8zd', description: 'Also in the X-Request-Id header and the logs.' }) request_id: string;
  @ApiPropertyOptional({ type: [FieldErrorResponse], description: 'Per-field errors; validation_failed only.' }) errors?: FieldErrorResponse[];
}

/**
 * On a controller whose routes need a bearer token. The errors every such route can answer (no
 * or bad token, missing scope, rate limit) are added to each operation by shared/http/openapi.ts.
 */
export function ApiAuthenticated(): ClassDecorator {
  return applyDecorators(ApiBearerAuth());
}
