import { randomBytes } from 'node:crypto';
import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { ValidationError } from '../../../shared/domain/domain-error';
import { parseEventFilters } from './event-types';

export type EndpointStatus = 'enabled' | 'disabled';
/**
 * Why an endpoint is disabled: by a client (`manual`) or because it answered 410 Gone (`gone`,
 * set by the relay together with the failed delivery, see DeliveryStore).
 */
export type DisabledReason = 'manual' | 'gone';

/**
 * Endpoints per tenant (docs/security.md): every event is fanned out to each matching endpoint,
 * so the count bounds what one event costs the relay, and what one tenant can put in its queue.
 */
export const MAX_ENDPOINTS_PER_TENANT = 50;

/** The longest a rotated-out secret keeps signing alongside the new one (7 days). */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 86_400;
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

export interface WebhookEndpointProps {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the HMAC-SHA256 key). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function parseEndpointStatus(value: unknown): EndpointStatus {
  if (value !== 'enabled' && value !== 'disabled') throw ValidationError.field('status', 'status must be enabled or disabled');
  return value;
}

/**
 * A subscription: where to send which events, signed with which secret. The URL arrives here
 * already checked by the WebhookUrlPolicy port (that check needs DNS, so it is not the
 * aggregate's). Endpoints record no public events of their own.
 */
export class WebhookEndpoint extends AggregateRoot {
  private constructor(private props: WebhookEndpointProps) {
    super();
    this.version = props.version;
  }

  static create(input: { id: string; tenantId: string; url: string; events: unknown; description?: string | null; now: Date }): WebhookEndpoint {
    return new WebhookEndpoint({
      id: input.id,
      tenantId: input.tenantId,
      url: input.url,
      events: parseEventFilters(input.events),
      description: input.description ?? null,
      status: 'enabled',
      disabledReason: null,
      secret: generateWebhookSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: input.now,
      updatedAt: input.now,
      version: 0,
    });
  }

  static restore(props: WebhookEndpointProps): WebhookEndpoint {
    return new WebhookEndpoint({ ...props, events: [...props.events] });
  }

  get id(): string {
    return this.props.id;
  }
  get tenantId(): string {
    return this.props.tenantId;
  }
  get status(): EndpointStatus {
    return this.props.status;
  }
  get secret(): string {
    return this.props.secret;
  }

  snapshot(): Readonly<WebhookEndpointProps> {
    return { ...this.props, events: [...this.props.events], version: this.version };
  }

  update(changes: { url?: string; events?: unknown; description?: string | null; status?: unknown }, now: Date): void {
    if (changes.url !== undefined) this.props.url = changes.url;
    if (changes.events !== undefined) this.props.events = parseEventFilters(changes.events);
    if (changes.description !== undefined) this.props.description = changes.description;
    if (changes.status !== undefined) {
      const status = parseEndpointStatus(changes.status);
      if (status !== this.props.status) {
        this.props.status = status;
        this.props.disabledReason = status === 'disabled' ? 'manual' : null;
      }
    }
    this.props.updatedAt = now;
  }

  /**
   * A new secret signs from now on; the old one keeps signing too (a second `v1,` signature
   * in the same header) for `overlapSeconds`, so receivers can switch without losing events.
   * 0 retires the old secret at once (use it when the secret leaked).
   */
  rotateSecret(now: Date, overlapSeconds: number = DEFAULT_SECRET_OVERLAP_SECONDS): void {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_SECONDS) {
      throw ValidationError.field('overlap_seconds', `overlap_seconds must be an integer from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`);
    }
    this.props.previousSecret = overlapSeconds > 0 ? this.props.secret : null;
    this.props.previousSecretExpiresAt = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null;
    this.props.secret = generateWebhookSecret();
    this.props.updatedAt = now;
  }
}

/** The secrets a delivery made at `now` is signed with: the current one, then a rotated-out one still in its overlap. */
export function signingSecrets(
  endpoint: Pick<WebhookEndpointProps, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const previousValid =
    endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
