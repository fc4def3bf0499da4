import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointOrmEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', array: true }) events: string[];
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text' }) status: string;
  @Column({ name: 'disabled_reason', type: 'text', nullable: true }) disabledReason: string | null;
  @Column({ type: 'text' }) secret: string;
  @Column({ name: 'previous_secret', type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true }) previousSecretExpiresAt: Date | null;
  @Column({ type: 'integer' }) version: number;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
