import http from 'node:http';
import https from 'node:https';
import { LookupFunction } from 'node:net';

export interface HttpAnswer {
  status: number;
  retryAfter: string | undefined;
}

export interface PostOptions {
  url: URL;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  lookup: LookupFunction;
  signal?: AbortSignal;
}

/**
 * One POST to a receiver with node's http client, because it lets the socket's address come
 * from our `lookup` (the SSRF guard) rather than a second DNS resolution. Redirects are not
 * followed (a 3xx is an answer to retry). The timeout covers the whole exchange up to the
 * response headers; the body is drained in the background so the keep-alive socket is reused.
 */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  /**
   * `maxSockets` is the relay's own concurrency: a request never waits in the agent's queue for
   * a socket held by another endpoint on the same host (its timeout would run while it waits).
   */
  constructor(
    private readonly userAgent: string,
    maxSockets = 256,
  ) {
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets, timeout: 60_000 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets, timeout: 60_000 });
  }

  post(options: PostOptions): Promise<HttpAnswer> {
    const { url, body, timeoutMs, signal } = options;
    const secure = url.protocol === 'https:';
    return new Promise<HttpAnswer>((resolve, reject) => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: options.lookup,
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': this.userAgent,
        },
        signal,
      });
      const timer = setTimeout(() => request.destroy(new Error(`timeout: no response within ${timeoutMs} ms`)), timeoutMs);
      request.on('response', (response) => {
        clearTimeout(timer);
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
        // A receiver that streams an endless body only costs the socket, closed after the timeout.
        const drain = setTimeout(() => response.destroy(), timeoutMs);
        response.on('close', () => clearTimeout(drain));
        response.resume();
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
