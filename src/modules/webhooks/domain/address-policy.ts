import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a webhook may be sent to: public unicast only. Private (RFC 1918),
 * loopback, link-local (incl. the cloud metadata address 169.254.169.254), CGNAT, unique-local
 * (incl. fd00:ec2::254), multicast, reserved and documentation ranges are refused, and so are
 * IPv6 forms that embed such an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
 */
export interface AddressVerdict {
  allowed: boolean;
  /** the range name the address fell in (`private`, `loopback`, `unicast`, ...) */
  range: string;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const IPV4_COMPATIBLE_V6 = ipaddr.IPv6.parse('::');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');

export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}

function classifyV4(ip: ipaddr.IPv4): AddressVerdict {
  const range = ip.range();
  return { allowed: range === 'unicast', range };
}

function classifyV6(ip: ipaddr.IPv6): AddressVerdict {
  const range = ip.range();
  const parts = ip.parts;
  const embedded = (hi: number, lo: number) => {
    const v4 = classifyV4(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
    return { allowed: v4.allowed, range: `${range}(${v4.range})` };
  };
  switch (range) {
    case 'ipv4Mapped':
      return embedded(parts[6], parts[7]);
    case 'rfc6052':
      // Only the well-known NAT64 prefix embeds a routable IPv4 address; 64:ff9b:1::/48 is local use.
      return ip.match(NAT64_WELL_KNOWN, 96) ? embedded(parts[6], parts[7]) : { allowed: false, range };
    case '6to4':
      return embedded(parts[1], parts[2]);
    case 'unicast':
      // ::a.b.c.d (deprecated IPv4-compatible) is not special to ipaddr.js; outside 2000::/3 nothing is assigned.
      if (ip.match(IPV4_COMPATIBLE_V6, 96)) return { allowed: false, range: 'ipv4Compatible' };
      if (!ip.match(GLOBAL_UNICAST_V6, 3)) return { allowed: false, range: 'unassigned' };
      return { allowed: true, range };
    default:
      return { allowed: false, range };
  }
}
