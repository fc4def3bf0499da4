import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentJson } from '../domain/payment.snapshot';
import { PaymentReadModel } from './payment-read-model';

export class GetPaymentQuery {
  constructor(
    readonly tenantId: string,
    readonly paymentId: string,
  ) {}
}

@QueryHandler(GetPaymentQuery)
export class GetPaymentHandler implements IQueryHandler<GetPaymentQuery, PaymentJson> {
  constructor(private readonly readModel: PaymentReadModel) {}

  execute({ tenantId, paymentId }: GetPaymentQuery): Promise<PaymentJson> {
    return this.readModel.get(tenantId, paymentId);
  }
}
