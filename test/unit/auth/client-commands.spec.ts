import { CreateClientCommand, CreateTenantCommand, RevokeClientCommand } from '../../../src/modules/auth';
import { CreateClientHandler } from '../../../src/modules/auth/application/create-client.command';
import { CreateTenantHandler } from '../../../src/modules/auth/application/create-tenant.command';
import { RevokeClientHandler } from '../../../src/modules/auth/application/revoke-client.command';
import { ApiClient, Tenant } from '../../../src/modules/auth/domain/api-client';
import { ApiClientRepository } from '../../../src/modules/auth/domain/api-client.repository';
import { SecretHasher } from '../../../src/modules/auth/domain/secret-hasher';
import { FixedClock } from '../../../src/shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../src/shared/domain/domain-error';
import { isValidId } from '../../../src/shared/domain/ids';

class InMemoryApiClientRepository extends ApiClientRepository {
  readonly clients = new Map<string, ApiClient>();
  readonly tenants = new Map<string, Tenant>();
  async findClient(id: string) {
    return this.clients.get(id) ?? null;
  }
  async insertClient(client: ApiClient) {
    this.clients.set(client.id, client);
  }
  async revokeClient(id: string, at: Date) {
    const c = this.clients.get(id);
    if (!c || c.revokedAt) return false;
    c.revokedAt = at;
    return true;
  }
  async findTenant(id: string) {
    return this.tenants.get(id) ?? null;
  }
  async insertTenant(tenant: Tenant) {
    this.tenants.set(tenant.id, tenant);
  }
  async countTenants() {
    return this.tenants.size;
  }
}

/** Argon2 is slow on purpose; the handlers only need "some one-way function". */
class FakeHasher extends SecretHasher {
  override async hash(secret: string) {
    return `hashed:${secret.length}:${secret.slice(-4)}`;
  }

  override async verify(hashed: string | null, secret: string) {
    return hashed !== null && hashed === (await this.hash(secret));
  }
}

describe('client provisioning commands', () => {
  const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
  let repo: InMemoryApiClientRepository;
  let createClient: CreateClientHandler;
  let createTenant: CreateTenantHandler;

  beforeEach(() => {
    repo = new InMemoryApiClientRepository();
    createClient = new CreateClientHandler(repo, new FakeHasher(), clock);
    createTenant = new CreateTenantHandler(repo, createClient, clock);
  });

  it('creates a tenant with a first client holding every scope; the secret is stored only hashed', async () => {
    const created = await createTenant.execute(new CreateTenantCommand('  Acme  '));
    expect(isValidId(created.tenant_id, 'ten')).toBe(true);
    expect(isValidId(created.client_id, 'cli')).toBe(true);
    expect(created.client_secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(created.scopes).toHaveLength(10);
    expect(repo.tenants.get(created.tenant_id)).toMatchObject({ name: 'Acme', createdAt: clock.now() });
    const stored = repo.clients.get(created.client_id)!;
    expect(stored).toMatchObject({ tenantId: created.tenant_id, rateLimit: null, revokedAt: null });
    expect(stored.secretHash).not.toContain(created.client_secret);
  });

  it('gives every client a different secret', async () => {
    const { tenant_id } = await createTenant.execute(new CreateTenantCommand('Acme'));
    const secrets = await Promise.all([1, 2, 3].map(() => createClient.execute(new CreateClientCommand(tenant_id))));
    expect(new Set(secrets.map((s) => s.client_secret)).size).toBe(3);
  });

  it('narrows scopes and sets a per-client rate limit', async () => {
    const created = await createTenant.execute(new CreateTenantCommand('Acme', 'invoices:read', 5));
    expect(created.scopes).toEqual(['invoices:read']);
    expect(repo.clients.get(created.client_id)).toMatchObject({ scopes: ['invoices:read'], rateLimit: 5 });
  });

  it.each([0, -1, 2.5])('refuses the rate limit %p', async (limit) => {
    const { tenant_id } = await createTenant.execute(new CreateTenantCommand('Acme'));
    await expect(createClient.execute(new CreateClientCommand(tenant_id, undefined, limit))).rejects.toThrow(ValidationError);
  });

  it('refuses an empty tenant name and unknown scopes before writing anything', async () => {
    await expect(createTenant.execute(new CreateTenantCommand('  '))).rejects.toThrow(ValidationError);
    await expect(createClient.execute(new CreateClientCommand('ten_x', 'invoices:read'))).rejects.toThrow(NotFoundError);
    const { tenant_id } = await createTenant.execute(new CreateTenantCommand('Acme'));
    await expect(createClient.execute(new CreateClientCommand(tenant_id, 'invoices:delete'))).rejects.toThrow(ValidationError);
    expect(repo.clients.size).toBe(1);
  });

  it('revokes a client once and 404s an unknown one', async () => {
    const revoke = new RevokeClientHandler(repo, clock);
    const { client_id } = await createTenant.execute(new CreateTenantCommand('Acme'));
    await expect(revoke.execute(new RevokeClientCommand(client_id))).resolves.toEqual({ client_id, revoked: true });
    expect(repo.clients.get(client_id)!.revokedAt).toEqual(clock.now());
    await expect(revoke.execute(new RevokeClientCommand('cli_unknown'))).rejects.toThrow(NotFoundError);
  });
});
