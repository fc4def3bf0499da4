import { createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { isProduction, StartupConfigError } from '../../../config/production';

/**
 * The HMAC key for access tokens. JWT_SECRET wins; without it the first instance generates
 * one and stores it in the database, so every instance (and restart) verifies the same tokens.
 * Production never does that (main.ts refuses to start first; this is the second line).
 */
@Injectable()
export class JwtSecretProvider implements OnModuleInit {
  private value?: string;
  private keyObject?: KeyObject;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.jwtSecret) {
      this.value = this.config.jwtSecret;
      return;
    }
    if (isProduction()) throw new StartupConfigError('NODE_ENV=production needs JWT_SECRET (or JWT_SECRET_FILE) to be set; no key is generated into the database in production.');
    await this.dataSource.query(
      `INSERT INTO system_settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING`,
      [randomBytes(48).toString('base64url')],
    );
    const [row] = await this.dataSource.query(`SELECT value FROM system_settings WHERE key = 'jwt_secret'`);
    this.value = row.value;
  }

  get secret(): string {
    if (!this.value) throw new Error('JWT secret not loaded yet');
    return this.value;
  }

  /**
   * The same secret as a KeyObject, made once. jsonwebtoken turns a string secret into a key
   * on every verification, first trying (and failing) to parse it as a public key: that
   * thrown error was the largest single cost of an authenticated request in the profile.
   */
  get key(): KeyObject {
    this.keyObject ??= createSecretKey(Buffer.from(this.secret, 'utf8'));
    return this.keyObject;
  }
}
