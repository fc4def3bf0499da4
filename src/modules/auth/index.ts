/** What other modules may use from auth. */
export { Public, RequireScopes, CurrentClient } from './api/auth.decorators';
export { JwtAuthGuard } from './api/jwt-auth.guard';
export { ScopesGuard } from './api/scopes.guard';
export { AuthModule } from './auth.module';
export { CreateTenantCommand } from './application/create-tenant.command';
export { CreateClientCommand, type CreatedClient } from './application/create-client.command';
export { RevokeClientCommand } from './application/revoke-client.command';
export { ALL_SCOPES, type Scope } from './domain/scopes';
