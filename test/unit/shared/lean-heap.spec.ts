import * as v8 from 'node:v8';
import { holdLeanHeap, withLeanHeap } from '../../../src/shared/infrastructure/lean-heap';

jest.mock('node:v8', () => ({ setFlagsFromString: jest.fn() }));
const setFlagsFromString = v8.setFlagsFromString as jest.Mock;

/** The lean heap (V8's --heap-growing-percent) is on while any bank file is read or recorded, off once none is. */
describe('lean heap while bank imports run', () => {
  beforeEach(() => setFlagsFromString.mockClear());

  it('is set by the first holder and restored by the last, whatever the order of release', async () => {
    const reading = holdLeanHeap();
    const recording = holdLeanHeap();
    expect(setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=100']]);
    reading();
    reading(); // released twice: counted once
    expect(setFlagsFromString).toHaveBeenCalledTimes(1);
    recording();
    expect(setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=100'], ['--heap-growing-percent=0']]);
  });

  it('is released when the work fails', async () => {
    await expect(withLeanHeap(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=100'], ['--heap-growing-percent=0']]);
  });
});
