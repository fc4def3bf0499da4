import { FieldError } from '../domain/domain-error';

/** RFC 9457 problem details, as every error of the API is answered. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<string, string> = {
  validation_failed: 'Validation failed',
  malformed_json: 'Malformed JSON',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  not_acceptable: 'Not acceptable',
  conflict: 'Conflict',
  invalid_state: 'Invalid state',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  uri_too_long: 'URI too long',
  headers_too_large: 'Request header fields too large',
  request_timeout: 'Request timeout',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  invalid_bank_file: 'Invalid bank file',
  idempotency_key_in_use: 'Idempotency key in use',
  rate_limited: 'Too many requests',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
  database_timeout: 'Database timeout',
};

export const STATUS_BY_CODE: Record<string, number> = {
  validation_failed: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  invalid_state: 409,
  idempotency_key_in_use: 409,
  precondition_failed: 412,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  invalid_bank_file: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  database_timeout: 503,
};

export function problem(code: string, detail: string, requestId: string, errors?: FieldError[]): ProblemDetails {
  const status = STATUS_BY_CODE[code] ?? 500;
  return {
    type: `/problems/${code}`,
    title: TITLES[code] ?? 'Error',
    status,
    detail,
    code,
    request_id: requestId,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
