import { LookupAddress } from 'node:dns';
import { BlockedAddressError, ResolvedAddress, WebhookUrlGuard } from '../../../src/modules/webhooks/infrastructure/webhook-url-guard';
import { ValidationError } from '../../../src/shared/domain/domain-error';

/** A resolver with a fixed zone; unknown names fail like NXDOMAIN. */
function zone(records: Record<string, string[]>) {
  const calls: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const addresses = records[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolver, calls };
}

const DNS = zone({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.5'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'v6-metadata.example.com': ['fd00:ec2::254'],
  'mapped.example.com': ['::ffff:192.168.0.1'],
  localhost: ['127.0.0.1', '::1'],
});

async function refusal(guard: WebhookUrlGuard, url: string): Promise<string> {
  try {
    await guard.assertAcceptable(url);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).errors?.[0]).toMatchObject({ field: 'url', code: 'invalid_url' });
    return (e as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('webhook URL guard at registration', () => {
  const guard = new WebhookUrlGuard(false, DNS.resolver);

  it('accepts https URLs whose every address is public', async () => {
    await expect(guard.assertAcceptable('https://hooks.example.com/receivables?x=1')).resolves.toBe('https://hooks.example.com/receivables?x=1');
    await expect(guard.assertAcceptable('https://93.184.215.14:8443/hook')).resolves.toBe('https://93.184.215.14:8443/hook');
    await expect(guard.assertAcceptable('https://[2606:4700:4700::1111]/hook')).resolves.toBe('https://[2606:4700:4700::1111]/hook');
  });

  it('refuses http and other schemes', async () => {
    expect(await refusal(guard, 'http://hooks.example.com/')).toMatch(/https/);
    expect(await refusal(guard, 'ftp://hooks.example.com/')).toMatch(/https/);
    expect(await refusal(guard, 'javascript:alert(1)')).toMatch(/https/);
  });

  it('refuses malformed URLs, credentials and overlong URLs', async () => {
    expect(await refusal(guard, 'hooks.example.com/x')).toMatch(/absolute URL/);
    expect(await refusal(guard, 'https://user:pw@hooks.example.com/')).toMatch(/credentials/);
    expect(await refusal(guard, `https://hooks.example.com/${'a'.repeat(2048)}`)).toMatch(/2048/);
  });

  it.each([
    'https://127.0.0.1/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://10.1.2.3/',
    'https://192.168.0.10/',
    'https://172.20.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.1.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[fe80::1]/',
    'https://[fd00:ec2::254]/',
    'https://[fc00::1]/',
    'https://[ff02::1]/',
  ])('refuses the non-public IP literal in %s', async (url) => {
    expect(await refusal(guard, url)).toMatch(/public addresses/);
  });

  it.each([
    ['https://localhost:8443/', '127.0.0.1'],
    ['https://internal.example.com/', '10.0.0.5'],
    ['https://metadata.example.com/', '169.254.169.254'],
    ['https://v6-metadata.example.com/', 'fd00:ec2::254'],
    ['https://mapped.example.com/', 'ffff'],
    // one private address among public ones is enough to refuse the host
    ['https://mixed.example.com/', '127.0.0.1'],
  ])('refuses %s, which resolves to a non-public address, without saying what it resolves to', async (url, address) => {
    const message = await refusal(guard, url);
    expect(message).toBe(`url host ${new URL(url).hostname} must resolve, and only to public addresses`);
    expect(message).not.toContain(address);
    expect(message).not.toMatch(/private|loopback|linkLocal|uniqueLocal|ipv4Mapped/);
  });

  it('refuses a host that does not resolve', async () => {
    // the same answer as for an internal name: a tenant cannot probe which names exist inside
    expect(await refusal(guard, 'https://nowhere.example.com/')).toBe('url host nowhere.example.com must resolve, and only to public addresses');
  });

  it('lets everything through, http included, when private URLs are allowed', async () => {
    const open = new WebhookUrlGuard(true, DNS.resolver);
    await expect(open.assertAcceptable('http://127.0.0.1:3000/hook')).resolves.toBe('http://127.0.0.1:3000/hook');
    await expect(open.assertAcceptable('http://internal.example.com/')).resolves.toBe('http://internal.example.com/');
    await expect(open.assertAcceptable('https://nowhere.example.com/')).resolves.toBe('https://nowhere.example.com/');
    expect(await refusal(open, 'ftp://127.0.0.1/')).toMatch(/https/);
  });
});

describe('webhook URL guard at delivery', () => {
  const lookup = (guard: WebhookUrlGuard, host: string, options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
      guard.lookup(host, options as never, ((error: Error | null, address: string | LookupAddress[], family?: number) =>
        resolve({ error, address, family })) as never),
    );

  it('hands the socket only checked public addresses', async () => {
    const guard = new WebhookUrlGuard(false, DNS.resolver);
    expect(await lookup(guard, 'hooks.example.com')).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookup(guard, 'hooks.example.com', { family: 6 })).toMatchObject({ error: null, address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
    expect((await lookup(guard, 'hooks.example.com', { all: true })).address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
  });

  it('fails the connection when the name now resolves to a private address (DNS rebinding)', async () => {
    let answer = '93.184.215.14';
    const guard = new WebhookUrlGuard(false, async () => [{ address: answer, family: 4 }]);
    await expect(guard.assertAcceptable('https://rebind.example.com/')).resolves.toBeDefined();
    answer = '127.0.0.1';
    const { error } = await lookup(guard, 'rebind.example.com', { all: true });
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error!.message).toBe('blocked: rebind.example.com must resolve, and only to public addresses');
  });

  it('checks IP-literal hosts and the scheme before any socket is opened', () => {
    const guard = new WebhookUrlGuard(false, DNS.resolver);
    expect(() => guard.assertDeliverable(new URL('https://169.254.169.254/'))).toThrow(/blocked: 169\.254\.169\.254/);
    expect(() => guard.assertDeliverable(new URL('https://[::ffff:7f00:1]/'))).toThrow(BlockedAddressError);
    expect(() => guard.assertDeliverable(new URL('http://93.184.215.14/'))).toThrow(/https only/);
    expect(() => guard.assertDeliverable(new URL('https://93.184.215.14/'))).not.toThrow();
    expect(() => new WebhookUrlGuard(true).assertDeliverable(new URL('http://127.0.0.1/'))).not.toThrow();
  });

  it('passes resolver failures through', async () => {
    const guard = new WebhookUrlGuard(false, DNS.resolver);
    expect((await lookup(guard, 'nowhere.example.com')).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
