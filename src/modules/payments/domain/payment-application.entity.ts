export type ApplicationSource = 'auto' | 'manual';

export interface PaymentApplicationState {
  id: string;
  invoiceId: string;
  invoiceNumber: string;
  amount: number;
  source: ApplicationSource;
  appliedAt: Date;
  reversedAt: Date | null;
}

/** Part of a payment applied to one invoice. Reversing keeps the row (history) and stops it counting. */
export class PaymentApplication {
  private constructor(private state: PaymentApplicationState) {}

  static create(state: Omit<PaymentApplicationState, 'reversedAt'>): PaymentApplication {
    return new PaymentApplication({ ...state, reversedAt: null });
  }

  static restore(state: PaymentApplicationState): PaymentApplication {
    return new PaymentApplication({ ...state });
  }

  get id(): string {
    return this.state.id;
  }
  get invoiceId(): string {
    return this.state.invoiceId;
  }
  get invoiceNumber(): string {
    return this.state.invoiceNumber;
  }
  get amount(): number {
    return this.state.amount;
  }
  get source(): ApplicationSource {
    return this.state.source;
  }
  get appliedAt(): Date {
    return this.state.appliedAt;
  }
  get reversedAt(): Date | null {
    return this.state.reversedAt;
  }
  get isActive(): boolean {
    return this.state.reversedAt === null;
  }

  reverse(at: Date): void {
    this.state = { ...this.state, reversedAt: at };
  }

  toState(): PaymentApplicationState {
    return { ...this.state };
  }
}

/**
 * Watched list of a payment's applications (ddd-forum): the repository writes only what
 * changed — new applications are inserted, reversed ones updated — never the whole list.
 */
export class PaymentApplications {
  private readonly added = new Set<PaymentApplication>();
  private readonly reversed = new Set<PaymentApplication>();

  constructor(private readonly items: PaymentApplication[] = []) {}

  all(): readonly PaymentApplication[] {
    return this.items;
  }

  active(): PaymentApplication[] {
    return this.items.filter((a) => a.isActive);
  }

  find(id: string): PaymentApplication | undefined {
    return this.items.find((a) => a.id === id);
  }

  add(application: PaymentApplication): void {
    this.items.push(application);
    this.added.add(application);
  }

  reverse(application: PaymentApplication, at: Date): void {
    application.reverse(at);
    // Applied and reversed before saving: nothing to update, only the insert (with reversed_at).
    if (!this.added.has(application)) this.reversed.add(application);
  }

  getNewItems(): PaymentApplication[] {
    return [...this.added];
  }

  getReversedItems(): PaymentApplication[] {
    return [...this.reversed];
  }

  /** After a save: what was written is no longer a change. */
  clearChanges(): void {
    this.added.clear();
    this.reversed.clear();
  }
}
