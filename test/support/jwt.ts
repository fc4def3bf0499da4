import { createHmac } from 'node:crypto';

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Builds a JWT by hand, so tests can forge what a real library would refuse to produce (alg none, HS512, expired). */
export function forgeJwt(header: Record<string, unknown>, payload: Record<string, unknown>, secret?: string): string {
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  if (header.alg === 'none' || secret === undefined) return `${signingInput}.`;
  const algorithm = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[String(header.alg)];
  if (!algorithm) throw new Error(`forgeJwt cannot sign ${String(header.alg)}`);
  return `${signingInput}.${createHmac(algorithm, secret).update(signingInput).digest('base64url')}`;
}

export function decodeJwt(token: string): { header: Record<string, any>; payload: Record<string, any>; signature: string } {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
    signature,
  };
}
