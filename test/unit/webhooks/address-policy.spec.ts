import { classifyAddress } from '../../../src/modules/webhooks/domain/address-policy';

describe('webhook address policy', () => {
  it.each([
    ['93.184.215.14', 'unicast'],
    ['8.8.8.8', 'unicast'],
    ['1.1.1.1', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['2a00:1450:4001:81c::200e', 'unicast'],
  ])('allows the public address %s', (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, range });
  });

  it.each([
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range });
  });

  it('judges IPv4-mapped IPv6 addresses by the IPv4 address inside', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toEqual({ allowed: false, range: 'ipv4Mapped(loopback)' });
    expect(classifyAddress('::ffff:7f00:1')).toEqual({ allowed: false, range: 'ipv4Mapped(loopback)' });
    expect(classifyAddress('::ffff:169.254.169.254')).toEqual({ allowed: false, range: 'ipv4Mapped(linkLocal)' });
    expect(classifyAddress('::ffff:10.1.2.3')).toEqual({ allowed: false, range: 'ipv4Mapped(private)' });
    expect(classifyAddress('::ffff:8.8.8.8')).toEqual({ allowed: true, range: 'ipv4Mapped(unicast)' });
  });

  it('judges NAT64 and 6to4 addresses by the IPv4 address they embed', () => {
    expect(classifyAddress('64:ff9b::7f00:1').allowed).toBe(false);
    expect(classifyAddress('64:ff9b::a9fe:a9fe').allowed).toBe(false);
    expect(classifyAddress('64:ff9b::808:808')).toEqual({ allowed: true, range: 'rfc6052(unicast)' });
    expect(classifyAddress('64:ff9b:1::808:808').allowed).toBe(false);
    expect(classifyAddress('2002:7f00:1::1')).toEqual({ allowed: false, range: '6to4(loopback)' });
    expect(classifyAddress('2002:c0a8:101::1')).toEqual({ allowed: false, range: '6to4(private)' });
    expect(classifyAddress('2002:808:808::1').allowed).toBe(true);
  });

  it('refuses deprecated IPv4-compatible, Teredo, site-local and unassigned IPv6 space', () => {
    // URLs and resolvers give the canonical form ([::7f00:1]); ipaddr.js reads the dotted form as mapped.
    expect(classifyAddress('::7f00:1')).toEqual({ allowed: false, range: 'ipv4Compatible' });
    expect(classifyAddress('::808:808')).toEqual({ allowed: false, range: 'ipv4Compatible' });
    expect(classifyAddress('::127.0.0.1').allowed).toBe(false);
    expect(classifyAddress('2001::1').allowed).toBe(false);
    expect(classifyAddress('fec0::1').allowed).toBe(false);
    expect(classifyAddress('4000::1')).toEqual({ allowed: false, range: 'unassigned' });
  });

  it('refuses anything that is not an address', () => {
    expect(classifyAddress('example.com')).toEqual({ allowed: false, range: 'invalid' });
    expect(classifyAddress('').allowed).toBe(false);
  });
});
