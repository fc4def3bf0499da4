import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Customer, CustomerInput, CustomerRepository } from '../../customers';
import { TenantCalendar } from '../../settings';
import { Invoice, InvoiceCustomer } from '../domain/invoice.aggregate';
import { InvoiceNumberRepository } from '../domain/invoice-number.repository';
import { InvoiceRepository } from '../domain/invoice.repository';
import { LineItemInput } from '../domain/line-item.value-object';

/** The customer as `POST /invoices` may describe it: matched by id, external_id, then email; else created. */
export interface InvoiceCustomerInput extends CustomerInput {
  id?: string;
}

export interface CreateInvoiceInput {
  customer_id?: string;
  customer?: InvoiceCustomerInput;
  number?: string;
  status?: string;
  currency?: string;
  issue_date?: string;
  due_date?: string;
  po_number?: string | null;
  memo?: string | null;
  line_items: LineItemInput[];
  metadata?: Record<string, unknown> | null;
}

export class CreateInvoiceCommand {
  constructor(
    readonly tenantId: string,
    readonly input: CreateInvoiceInput,
  ) {}
}

export function toInvoiceCustomer(c: Customer): InvoiceCustomer {
  return { id: c.id, name: c.name, email: c.email, currency: c.currency, paymentTermsDays: c.paymentTermsDays };
}

/** Returns the new invoice's id. */
@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand, string> {
  constructor(
    private readonly invoices: InvoiceRepository,
    private readonly numbers: InvoiceNumberRepository,
    private readonly customers: CustomerRepository,
    private readonly clock: Clock,
    private readonly calendar: TenantCalendar,
  ) {}

  async execute({ tenantId, input }: CreateInvoiceCommand): Promise<string> {
    const customer = await this.resolveCustomer(tenantId, input);
    let number: string;
    if (input.number === undefined) {
      number = await this.numbers.next(tenantId);
    } else {
      await this.numbers.lock(tenantId);
      number = input.number;
    }
    const invoice = Invoice.create({
      tenantId,
      number,
      customer: toInvoiceCustomer(customer),
      currency: input.currency,
      status: input.status,
      issueDate: input.issue_date,
      dueDate: input.due_date,
      poNumber: input.po_number,
      memo: input.memo,
      lineItems: input.line_items,
      metadata: input.metadata,
      at: await this.calendar.now(tenantId),
    });
    await this.invoices.save(invoice);
    return invoice.id;
  }

  private async resolveCustomer(tenantId: string, input: CreateInvoiceInput): Promise<Customer> {
    if ((input.customer_id === undefined) === (input.customer === undefined)) {
      throw ValidationError.field('customer_id', 'send either customer_id or customer', 'required');
    }
    if (input.customer_id !== undefined) {
      const found = isValidId(input.customer_id, 'cus') ? await this.customers.findById(tenantId, input.customer_id) : null;
      if (!found) throw new NotFoundError('Customer', input.customer_id);
      return found;
    }
    const { id, ...attributes } = input.customer!;
    const match =
      (id !== undefined && isValidId(id, 'cus') ? await this.customers.findById(tenantId, id) : null) ??
      (attributes.external_id ? await this.customers.findByExternalId(tenantId, attributes.external_id) : null) ??
      (attributes.email ? await this.customers.findByEmail(tenantId, attributes.email) : null);
    if (match) return match;
    // None matched: the customer is created with the invoice, in the invoice's currency unless it names one.
    const created = Customer.create(tenantId, { ...attributes, currency: attributes.currency ?? input.currency }, this.clock.now());
    await this.customers.save(created);
    return created;
  }
}
