import { hash, verify } from '@node-rs/argon2';
import { Injectable } from '@nestjs/common';

/**
 * Argon2id (OWASP's first choice for password storage) via a prebuilt native binding.
 * Parameters follow OWASP's minimum (19 MiB, 2 passes); a secret is 32 random bytes, so
 * the hash only has to make a stolen table useless, not stretch a weak password.
 */
@Injectable()
export class SecretHasher {
  private static readonly OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
  // A hash of a random secret, so that an unknown client id costs as much as a wrong secret.
  private decoy?: Promise<string>;

  hash(secret: string): Promise<string> {
    return hash(secret, SecretHasher.OPTIONS);
  }

  async verify(hashed: string | null, secret: string): Promise<boolean> {
    if (!hashed) {
      this.decoy ??= this.hash('decoy-secret-never-issued');
      await verify(await this.decoy, secret).catch(() => false);
      return false;
    }
    return verify(hashed, secret).catch(() => false);
  }
}
