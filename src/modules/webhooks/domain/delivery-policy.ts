/**
 * What happens after one delivery attempt: pure rules, unit-tested without a network.
 *
 * The retry schedule lists the waits (seconds) before retry 1, 2, ...; an event is therefore
 * tried at most `schedule.length + 1` times. Waits get up to +20 % random jitter (never less
 * than the documented wait) so that endpoints coming back after an outage are not hit by every
 * retry at the same instant. `Retry-After` on 429/503 is a lower bound for the next wait.
 */
export const JITTER_RATIO = 0.2;

/** A receiver asking for more than a day is not taken literally: its retry budget still applies. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export type AttemptResult =
  | { kind: 'success'; status: number }
  | { kind: 'gone'; status: 410 }
  | { kind: 'retry'; status: number | null; error: string; retryAfterSeconds: number | null };

/** Classifies an HTTP answer; `null` status means no answer (timeout, refused, TLS, blocked). */
export function classifyResponse(status: number, retryAfterHeader: string | undefined, now: Date): AttemptResult {
  if (status >= 200 && status < 300) return { kind: 'success', status };
  if (status === 410) return { kind: 'gone', status: 410 };
  const retryAfterSeconds = status === 429 || status === 503 ? parseRetryAfter(retryAfterHeader, now) : null;
  return { kind: 'retry', status, error: `HTTP ${status}`, retryAfterSeconds };
}

/** `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS);
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/**
 * Milliseconds to wait before the next attempt after `attemptsMade` failed attempts, or null
 * when the schedule is exhausted and the delivery has failed for good.
 */
export function nextRetryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterSeconds: number | null = null,
  random: () => number = Math.random,
): number | null {
  if (attemptsMade < 1 || attemptsMade > schedule.length) return null;
  const base = schedule[attemptsMade - 1] * 1000;
  const jittered = Math.round(base * (1 + JITTER_RATIO * random()));
  return retryAfterSeconds === null ? jittered : Math.max(jittered, retryAfterSeconds * 1000);
}
