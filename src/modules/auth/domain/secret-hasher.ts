/** Port: keeps client secrets only as slow one-way hashes and checks a presented secret against one. */
export abstract class SecretHasher {
  abstract hash(secret: string): Promise<string>;
  /** `hashed` is null for an unknown client: that still costs a hash, so both answers take as long. */
  abstract verify(hashed: string | null, secret: string): Promise<boolean>;
}
