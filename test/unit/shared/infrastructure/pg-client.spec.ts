import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { dataSourceOptions } from '../../../../src/shared/infrastructure/database/data-source';
import { ServiceClient } from '../../../../src/shared/infrastructure/database/pg-client';

/** docs/adr/0055: every pooled client listens for 'error' from its creation on. */
describe('ServiceClient', () => {
  afterEach(() => jest.restoreAllMocks());

  it("hears an 'error' no one else listens for (a plain Client would throw it), and says so", () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(() => new Client({ application_name: 'plain' }).emit('error', lost)).toThrow(/terminating connection/);
    const client = new ServiceClient({ application_name: 'receivables-api' });
    expect(() => client.emit('error', lost)).not.toThrow();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('receivables-api lost while no one held it: terminating connection'));
  });

  it('stays quiet when a holder or the pool listens too (they report it)', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const client = new ServiceClient();
    const heard: Error[] = [];
    client.on('error', (error: Error) => heard.push(error));
    client.emit('error', new Error('Connection terminated unexpectedly'));
    expect(heard).toHaveLength(1);
    expect(warn).not.toHaveBeenCalled();
  });

  it("is the Client of the service's TypeORM pool", () => {
    expect((dataSourceOptions('postgres://u@127.0.0.1/db', 5) as { extra: { Client: unknown } }).extra.Client).toBe(ServiceClient);
  });
});
