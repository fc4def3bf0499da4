import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'api_clients' })
export class ApiClientOrmEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', nullable: true }) name: string | null;
  @Column({ name: 'secret_hash', type: 'text' }) secretHash: string;
  @Column({ type: 'text', array: true }) scopes: string[];
  @Column({ name: 'rate_limit', type: 'integer', nullable: true }) rateLimit: number | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
