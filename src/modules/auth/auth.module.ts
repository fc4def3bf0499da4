import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreateClientHandler } from './application/create-client.command';
import { CreateTenantHandler } from './application/create-tenant.command';
import { RevokeClientHandler } from './application/revoke-client.command';
import { TokenService } from './application/token.service';
import { TokenController } from './api/token.controller';
import { TokenAttemptLimiter } from './api/token-attempt.limiter';
import { ApiClientRepository } from './domain/api-client.repository';
import { ApiClientOrmEntity } from './infrastructure/api-client.orm-entity';
import { TenantOrmEntity } from './infrastructure/tenant.orm-entity';
import { ClientStatusCache } from './infrastructure/client-status.cache';
import { JwtSecretProvider } from './infrastructure/jwt-secret.provider';
import { JwtRequestAuthenticator } from './infrastructure/jwt-request.authenticator';
import { JwtStrategy } from './infrastructure/jwt.strategy';
import { RequestAuthenticator } from '../../shared/http/request-authenticator';
import { SecretHasher } from './domain/secret-hasher';
import { Argon2SecretHasher } from './infrastructure/argon2-secret-hasher';
import { AccessTokenSigner } from './application/access-token.signer';
import { JwtAccessTokenSigner } from './infrastructure/jwt-access-token.signer';
import { TypeormApiClientRepository } from './infrastructure/typeorm-api-client.repository';

@Module({
  imports: [PassportModule, JwtModule.register({}), TypeOrmModule.forFeature([TenantOrmEntity, ApiClientOrmEntity])],
  controllers: [TokenController],
  providers: [
    { provide: ApiClientRepository, useClass: TypeormApiClientRepository },
    { provide: SecretHasher, useClass: Argon2SecretHasher },
    { provide: AccessTokenSigner, useClass: JwtAccessTokenSigner },
    JwtSecretProvider,
    ClientStatusCache,
    JwtStrategy,
    { provide: RequestAuthenticator, useClass: JwtRequestAuthenticator },
    TokenService,
    TokenAttemptLimiter,
    CreateTenantHandler,
    CreateClientHandler,
    RevokeClientHandler,
  ],
  exports: [ApiClientRepository, RequestAuthenticator],
})
export class AuthModule {}
