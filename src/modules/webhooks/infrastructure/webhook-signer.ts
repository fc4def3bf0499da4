import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing with the reference library: `v1,<base64 HMAC-SHA256(key,
 * "{id}.{timestamp}.{body}")>`, one signature per secret, space-separated (a receiver accepts
 * the message when any signature verifies, which is what makes secret rotation seamless).
 */
export function signatureHeader(eventId: string, timestamp: Date, body: string, secrets: readonly string[]): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body)).join(' ');
}

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
}

/** The request body; the exact string that is signed and sent. */
export function envelopeBody(event: { id: string; type: string; createdAt: Date; data: unknown }): string {
  const envelope: EventEnvelope = { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: event.data };
  return JSON.stringify(envelope);
}

export function webhookHeaders(eventId: string, timestamp: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(eventId, timestamp, body, secrets),
  };
}
