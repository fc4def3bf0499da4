import { lookup as dnsLookup } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { ValidationError } from '../../../shared/domain/domain-error';
import { classifyAddress } from '../domain/address-policy';
import { WebhookUrlPolicy } from '../domain/webhook-url-policy';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address the system resolver knows (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * A delivery refused because its host resolved to an address webhooks may not reach. For a name,
 * the message does not say what it resolved to: it is shown to the tenant (a delivery's
 * `last_error`), and internal addresses are none of a tenant's business.
 */
export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor(hostname: string, address: string, range: string) {
    super(hostname === address ? `blocked: ${address} is a ${range} address` : `blocked: ${hostname} ${NOT_PUBLIC}`);
  }
}

const NOT_PUBLIC = 'must resolve, and only to public addresses';

export const MAX_URL_LENGTH = 2048;

/**
 * SSRF guard, applied twice (contract §10): at registration on every address the host resolves
 * to, and at delivery through `lookup`, which node's http client uses to open the socket, so the
 * connection goes to exactly the address that was checked and a DNS answer that changes between
 * check and connect (rebinding) cannot slip a private address in. Hosts written as IP literals
 * never reach `lookup`; `assertDeliverable` checks those before the request is made.
 * A host with any refused address is refused as a whole rather than filtered: a public name
 * that also points inside the network is not one to trust.
 * With `WEBHOOK_ALLOW_PRIVATE_URLS=true` (development, tests) http and every address are allowed.
 */
export class WebhookUrlGuard extends WebhookUrlPolicy {
  constructor(
    readonly allowPrivate: boolean,
    private readonly resolver: Resolver = systemResolver,
  ) {
    super();
  }

  async assertAcceptable(raw: string): Promise<string> {
    const url = this.parse(raw);
    if (this.allowPrivate) return url.toString();
    const host = hostOf(url);
    if (isIP(host)) {
      this.assertAddress(host, (msg) => invalidUrl(msg));
      return url.toString();
    }
    // One answer for a name that does not resolve and one that resolves inside: the difference
    // would tell a tenant which internal names exist, and the address what they point to.
    const refused = invalidUrl(`url host ${host} ${NOT_PUBLIC}`);
    const addresses = await this.resolver(host).catch(() => [] as ResolvedAddress[]);
    if (addresses.length === 0 || addresses.some(({ address }) => !classifyAddress(address).allowed)) throw refused;
    return url.toString();
  }

  /** Delivery-time check of a stored URL before any socket is opened (scheme, IP-literal hosts). */
  assertDeliverable(url: URL): void {
    if (this.allowPrivate) return;
    if (url.protocol !== 'https:') throw new Error('blocked: webhooks are sent over https only');
    const host = hostOf(url);
    if (isIP(host)) this.assertAddress(host, () => new BlockedAddressError(host, host, classifyAddress(host).range));
  }

  /** `lookup` for http(s).request: resolves, checks every address, hands back only checked ones. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolver(hostname).then(
      (addresses) => {
        if (!this.allowPrivate) {
          for (const { address } of addresses) {
            const verdict = classifyAddress(address);
            if (!verdict.allowed) return callback(new BlockedAddressError(hostname, address, verdict.range), '', 0);
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
          return callback(error, '', 0);
        }
        // Node 20 asks for every address (happy eyeballs) when `all` is set.
        if (options.all) return (callback as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  private parse(raw: string): URL {
    if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH) throw invalidUrl(`url must be at most ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidUrl('url must be an absolute URL');
    }
    const schemes = this.allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) throw invalidUrl('url must use https');
    if (url.username || url.password) throw invalidUrl('url must not contain credentials');
    if (!url.hostname) throw invalidUrl('url must name a host');
    return url;
  }

  /** An IP literal: saying what kind of address the client itself wrote reveals nothing. */
  private assertAddress(address: string, fail: (message: string) => Error): void {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) throw fail(`url host ${address} is a ${verdict.range} address; webhooks are only sent to public addresses`);
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function invalidUrl(message: string): ValidationError {
  return ValidationError.field('url', message, 'invalid_url');
}
