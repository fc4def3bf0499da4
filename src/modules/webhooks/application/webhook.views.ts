import { WebhookEndpointProps } from '../domain/webhook-endpoint.aggregate';

/** The public JSON of an endpoint (never its secret; that is shown only on create and rotate). */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'gone' | null;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointWithSecretView extends EndpointView {
  secret: string;
}

export interface RotatedSecretView extends EndpointWithSecretView {
  /** until when the previous secret still signs alongside the new one (null: retired at once) */
  previous_secret_expires_at: string | null;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export function endpointView(p: Pick<WebhookEndpointProps, 'id' | 'url' | 'events' | 'status' | 'disabledReason' | 'description' | 'createdAt' | 'updatedAt'>): EndpointView {
  return {
    id: p.id,
    url: p.url,
    events: [...p.events],
    status: p.status,
    disabled_reason: p.disabledReason,
    description: p.description,
    created_at: iso(p.createdAt)!,
    updated_at: iso(p.updatedAt)!,
  };
}

/** Columns selected by every query that returns endpoints. */
export const ENDPOINT_COLUMNS = `id, url, events, status, disabled_reason, description, created_at, updated_at`;

export function endpointViewFromRow(row: Record<string, any>): EndpointView {
  return endpointView({
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabledReason: row.disabled_reason,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** Columns selected by every query that returns deliveries. */
export const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, status, attempts, last_response_code, last_error,
  last_attempt_at, next_attempt_at, created_at, updated_at`;

export function deliveryViewFromRow(row: Record<string, any>): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_response_code: row.last_response_code,
    last_error: row.last_error,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: iso(row.next_attempt_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
