import { CreateInvoiceRequest } from '../../../../src/modules/invoicing/api/invoice.request';
import { MatchPaymentRequest, RecordPaymentRequest } from '../../../../src/modules/payments/api/payment.request';
import { ValidationError } from '../../../../src/shared/domain/domain-error';
import { createValidationPipe } from '../../../../src/shared/http/validation.pipe';

/** Elements that count every property read: class-transformer and class-validator read them all. */
function watchedItems(n: number): { items: object[]; reads: () => number } {
  let reads = 0;
  const item = new Proxy({ description: 'x', quantity: 1, unit_amount: 1, invoice_id: 'inv_x' }, {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { items: Array.from({ length: n }, () => item), reads: () => reads };
}

describe('array bounds before transformation (validation pipe)', () => {
  const pipe = createValidationPipe();
  const body = (metatype: Function) => ({ type: 'body' as const, metatype: metatype as never });

  it.each<[string, Function, number, (items: object[]) => object, string]>([
    ['line items', CreateInvoiceRequest, 500, (items) => ({ customer_id: 'cus_x', line_items: items }), 'line_items'],
    ['remittance lines', RecordPaymentRequest, 1000, (items) => ({ amount: 1, remittance: items }), 'remittance'],
    ['match applications', MatchPaymentRequest, 1000, (items) => ({ applications: items }), 'applications'],
  ])('%s: over %i refused without reading a single element', async (_label, type, max, make, field) => {
    const { items, reads } = watchedItems(max + 1);
    const error = await pipe.transform(make(items), body(type)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual([{ field, code: 'arrayMaxSize', message: `${field} must contain at most ${max} elements` }]);
    expect(reads()).toBe(0);
  });

  it('leaves bodies within the limits to the usual validation', async () => {
    const ok = await pipe.transform({ customer_id: 'cus_x', line_items: [{ description: 'x', quantity: 1, unit_amount: 1 }] }, body(CreateInvoiceRequest));
    expect(ok).toBeInstanceOf(CreateInvoiceRequest);
  });
});
