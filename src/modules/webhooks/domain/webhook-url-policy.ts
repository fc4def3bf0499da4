/**
 * Port: decides whether a URL may receive webhooks (scheme, credentials, where it resolves).
 * Throws a ValidationError on `url` when it may not; returns the URL in canonical form.
 */
export abstract class WebhookUrlPolicy {
  abstract assertAcceptable(url: string): Promise<string>;
}
