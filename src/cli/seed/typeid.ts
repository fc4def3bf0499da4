import { Random } from './random';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * TypeIDs (`inv_01h...`) whose UUIDv7 carries a chosen timestamp, so seeded ids sort by
 * their created_at exactly as the service's ids do. Same encoding as typeid-js (26
 * Crockford base32 characters over 130 bits, the two leading bits zero), about five times
 * faster, which matters for millions of rows; a unit test checks it against typeid-js.
 */
export class TypeIdFactory {
  private readonly bytes = new Uint8Array(16);

  constructor(private readonly random: Random) {}

  make(prefix: string, timestampMs: number): string {
    const b = this.bytes;
    const ms = Math.floor(timestampMs);
    const high = Math.floor(ms / 0x1000000); // top 24 of 48 bits
    const low = ms % 0x1000000;
    b[0] = (high >>> 16) & 0xff;
    b[1] = (high >>> 8) & 0xff;
    b[2] = high & 0xff;
    b[3] = (low >>> 16) & 0xff;
    b[4] = (low >>> 8) & 0xff;
    b[5] = low & 0xff;
    const r1 = this.random.uint32();
    const r2 = this.random.uint32();
    const r3 = this.random.uint32();
    b[6] = 0x70 | (r1 & 0x0f); // version 7
    b[7] = (r1 >>> 8) & 0xff;
    b[8] = 0x80 | ((r1 >>> 16) & 0x3f); // RFC 4122 variant
    b[9] = (r1 >>> 24) & 0xff;
    b[10] = r2 & 0xff;
    b[11] = (r2 >>> 8) & 0xff;
    b[12] = (r2 >>> 16) & 0xff;
    b[13] = (r2 >>> 24) & 0xff;
    b[14] = r3 & 0xff;
    b[15] = (r3 >>> 8) & 0xff;
    return `${prefix}_${encode(b)}`;
  }
}

/** 128 bits → 26 base32 characters, most significant first (bit offset -2). */
export function encode(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 26; i++) {
    const start = i * 5 - 2; // bit index of the character's first bit
    let v = 0;
    for (let k = 0; k < 5; k++) {
      const bit = start + k;
      v = (v << 1) | (bit < 0 ? 0 : (b[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out += ALPHABET[v];
  }
  return out;
}
