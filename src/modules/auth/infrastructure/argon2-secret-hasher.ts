import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { Injectable } from '@nestjs/common';
import { SecretHasher } from '../domain/secret-hasher';

/**
 * Argon2id (OWASP's first choice for password storage) via a prebuilt native binding.
 * Parameters follow OWASP's minimum (19 MiB, 2 passes); a secret is 32 random bytes, so
 * the hash only has to make a stolen table useless, not stretch a weak password.
 *
 * At most one hash per CPU core runs at a time: each holds 19 MiB, and a burst of token
 * requests would otherwise run four (libuv's pool) to no benefit on a small machine, whose
 * cores they already fill, while adding 19 MiB of resident memory each (the benchmark's
 * peak RSS came from there).
 */
@Injectable()
export class Argon2SecretHasher extends SecretHasher {
  private static readonly OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
  // A hash of a random secret, so that an unknown client id costs as much as a wrong secret.
  private decoy?: Promise<string>;
  private readonly slots = Math.max(1, Math.min(4, availableParallelism()));
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  hash(secret: string): Promise<string> {
    return this.limited(() => hash(secret, Argon2SecretHasher.OPTIONS));
  }

  async verify(hashed: string | null, secret: string): Promise<boolean> {
    if (!hashed) {
      this.decoy ??= this.hash('decoy-secret-never-issued');
      const decoy = await this.decoy;
      await this.limited(() => verify(decoy, secret)).catch(() => false);
      return false;
    }
    return this.limited(() => verify(hashed, secret)).catch(() => false);
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    // A finishing hash hands its slot straight to the next waiter, so the count never overshoots.
    if (this.running < this.slots) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
