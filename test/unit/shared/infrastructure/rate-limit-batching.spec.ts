import { RateLimiterMemory } from 'rate-limiter-flexible';
import { loadConfig } from '../../../../src/config/config';
import { RateLimitService } from '../../../../src/shared/infrastructure/rate-limit/rate-limit.service';

/** Two service instances sharing one store, as two API replicas share the database. */
function instances(store: RateLimiterMemory, count = 2): { services: RateLimitService[]; calls: () => number } {
  let calls = 0;
  const counting = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'consume') return (...args: Parameters<RateLimiterMemory['consume']>) => (calls++, target.consume(...args));
      return Reflect.get(target, prop, receiver);
    },
  });
  const services = Array.from({ length: count }, () => {
    const service = new RateLimitService(loadConfig({}), 'postgres://unused');
    (service as unknown as { limiter: () => RateLimiterMemory }).limiter = () => counting;
    return service;
  });
  return { services, calls: () => calls };
}

describe('rate limiting with locally reserved batches', () => {
  it('never lets more than the limit through across instances, and refuses the next one', async () => {
    const store = new RateLimiterMemory({ points: 1000, duration: 60 });
    const { services, calls } = instances(store);
    let allowed = 0;
    for (let i = 0; i < 1100; i++) if ((await services[i % 2].take('client:a', 1000, 60)).allowed) allowed++;
    expect(allowed).toBe(1000);
    expect(calls()).toBeLessThan(1100 / 5); // batches of 10, plus refusals answered locally
  });

  it('reports remaining as if every request had been counted one by one', async () => {
    const { services } = instances(new RateLimiterMemory({ points: 1000, duration: 60 }), 1);
    const states = [];
    for (let i = 0; i < 12; i++) states.push(await services[0].take('client:b', 1000, 60));
    expect(states.map((s) => s.remaining)).toEqual([999, 998, 997, 996, 995, 994, 993, 992, 991, 990, 989, 988]);
    expect((await services[0].peek('client:b', 1000, 60)).remaining).toBe(988);
  });

  it('coalesces concurrent requests into one reservation per batch', async () => {
    const { services, calls } = instances(new RateLimiterMemory({ points: 100_000, duration: 60 }), 1);
    const states = await Promise.all(Array.from({ length: 250 }, () => services[0].take('client:c', 100_000, 60)));
    expect(states.every((s) => s.allowed)).toBe(true);
    expect(calls()).toBe(3); // 250 requests / batches of 100
  });

  it('counts exactly (batch of 1) for limits up to 100', async () => {
    const { services, calls } = instances(new RateLimiterMemory({ points: 5, duration: 60 }));
    const allowed = [];
    for (let i = 0; i < 7; i++) allowed.push((await services[i % 2].take('client:d', 5, 60)).allowed);
    expect(allowed).toEqual([true, true, true, true, true, false, false]);
    expect(RateLimitService.batchSize(100)).toBe(1);
    expect(RateLimitService.batchSize(1000)).toBe(10);
    expect(RateLimitService.batchSize(1_000_000)).toBe(100);
    expect(calls()).toBe(7 - 1); // the second refusal is answered locally: the window is spent
  });
});
