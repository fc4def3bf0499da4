import { ApiProperty } from '@nestjs/swagger';

class FieldErrorResponse {
  @ApiProperty({ example: 'line_items[0].quantity' }) field: string;
  @ApiProperty({ example: 'invalid' }) code: string;
  @ApiProperty({ example: 'line_items[0].quantity must be greater than 0' }) message: string;
}

/** RFC 9457 problem details as every error is answered (contract §4). */
export class ProblemResponse {
  @ApiProperty({ example: '/problems/validation_failed' }) type: string;
  @ApiProperty({ example: 'Validation failed' }) title: string;
  @ApiProperty({ example: 400 }) status: number;
  @ApiProperty({ example: 'The request is not valid: currency is required.' }) detail: string;
  @ApiProperty({
    example: 'validation_failed',
    enum: ['validation_failed', 'malformed_json', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'invalid_state', 'precondition_failed', 'rate_limited'],
  })
  code: string;
  @ApiProperty({ example: 'req_01jc9x7m3ef0ab6yr2t0n4q8zd' }) request_id: string;
  @ApiProperty({ type: [FieldErrorResponse], required: false, description: 'validation errors only' }) errors?: FieldErrorResponse[];
}
