import { SetMetadata } from '@nestjs/common';

export const REPLAYED_SECRET = Symbol('REPLAYED_SECRET');

/**
 * How an idempotent replay of a response carrying a secret shows that secret (docs/adr/0031).
 * The stored response never holds the secret, only its SHA-256; a replay reads the resource's
 * live secret with `liveSecretSql` ($1 tenant id, $2 the response's `id`, one row with a
 * `secret` column, or none) and shows it only while it is still the one the response created.
 * Once the resource is deleted or its secret rotated, the replay answers `secret: null`.
 */
export interface ReplayedSecretSpec {
  /** the top-level response field that carries the secret */
  field: string;
  liveSecretSql: string;
}

export const ReplayedSecret = (spec: ReplayedSecretSpec) => SetMetadata(REPLAYED_SECRET, spec);
