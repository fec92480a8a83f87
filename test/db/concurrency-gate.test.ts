import { ConcurrencyGate } from '../../src/db/concurrency-gate';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((r) => setImmediate(r));

describe('ConcurrencyGate', () => {
  test('when more callers come than the limit, then only `limit` run at once and the rest start in arrival order', async () => {
    const gate = new ConcurrencyGate(2);
    const started: number[] = [];
    const finish = Array.from({ length: 5 }, deferred);
    const runs = finish.map((f, i) =>
      gate.run(async () => {
        started.push(i);
        await f.promise;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(gate.load).toEqual({ active: 2, waiting: 3 });
    finish[1]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    expect(gate.load).toEqual({ active: 2, waiting: 2 });
    finish[0]!.resolve();
    finish[2]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    finish[3]!.resolve();
    finish[4]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  test('when a caller fails, then its error reaches it and its place passes on', async () => {
    const gate = new ConcurrencyGate(1);
    const failing = gate.run(async () => {
      throw new Error('boom');
    });
    const next = gate.run(async () => 'ok');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  test('when the limit is not a positive integer, then it is refused', () => {
    expect(() => new ConcurrencyGate(0)).toThrow(RangeError);
    expect(() => new ConcurrencyGate(1.5)).toThrow(RangeError);
  });
});
