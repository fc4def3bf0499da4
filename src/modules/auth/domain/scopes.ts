import { ValidationError } from '../../../shared/domain/domain-error';

export const ALL_SCOPES = [
  'invoices:read',
  'invoices:write',
  'payments:read',
  'payments:write',
  'customers:read',
  'customers:write',
  'webhooks:read',
  'webhooks:write',
  'settings:read',
  'settings:write',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Parses a space- (or comma-) separated scope list; unknown scopes are refused. */
export function parseScopes(value: string | undefined | null): Scope[] {
  if (value === undefined || value === null || value.trim() === '') return [...ALL_SCOPES];
  const parts = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  const unknown = parts.filter((p) => !isScope(p));
  if (unknown.length > 0) throw ValidationError.field('scopes', `unknown scope(s): ${unknown.join(', ')}`);
  return parts as Scope[];
}
