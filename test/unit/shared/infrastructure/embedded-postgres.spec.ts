import { sharedBuffersMb } from '../../../../src/shared/infrastructure/database/embedded-postgres';

describe('embedded PostgreSQL shared_buffers', () => {
  const GB = 1024 ** 3;

  it('takes a quarter of the memory, as PostgreSQL advises for a database server', () => {
    expect(sharedBuffersMb(8 * GB)).toBe(2048);
    expect(sharedBuffersMb(3 * GB)).toBe(768);
  });

  it('never goes below PostgreSQL’s own default nor above 4 GB', () => {
    expect(sharedBuffersMb(256 * 1024 ** 2)).toBe(128);
    expect(sharedBuffersMb(24 * GB)).toBe(4096);
  });
});
