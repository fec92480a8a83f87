import { nextAttemptAt } from '../../../src/domain/webhooks/retry-schedule';
import { testConfig } from '../../../src/config';

describe('webhook retry schedule', () => {
  const now = new Date('2026-11-25T12:00:00Z');

  test('when a try fails, then the next comes after its entry plus at most 20% jitter, and past the last entry there is none', () => {
    const schedule = [5, 300, 1800];
    expect(nextAttemptAt(schedule, 1, now, () => 0)!.getTime() - now.getTime()).toBe(5000);
    expect(nextAttemptAt(schedule, 1, now, () => 0.999)!.getTime() - now.getTime()).toBe(5999);
    expect(nextAttemptAt(schedule, 2, now, () => 0.5)!.getTime() - now.getTime()).toBe(330_000);
    expect(nextAttemptAt(schedule, 3, now, () => 0)!.getTime() - now.getTime()).toBe(1_800_000);
    expect(nextAttemptAt(schedule, 4, now)).toBeNull();
  });

  test('the default schedule retries for about a day, and the setting takes seconds (so tests can use short ones)', () => {
    const def = testConfig().WEBHOOK_RETRY_SCHEDULE_S;
    expect(def).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    const total = def.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(24 * 3600);
    expect(total * 1.2).toBeLessThan(36 * 3600);
    expect(testConfig({ WEBHOOK_RETRY_SCHEDULE_S: '1,0.5' }).WEBHOOK_RETRY_SCHEDULE_S).toEqual([1, 0.5]);
    expect(() => testConfig({ WEBHOOK_RETRY_SCHEDULE_S: '1,,2' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_S/);
    expect(testConfig().OUTBOUND_ALLOW_PRIVATE).toBe(false);
    expect(testConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' }).OUTBOUND_ALLOW_PRIVATE).toBe(true);
    expect(testConfig({ OUTBOUND_ALLOW_PRIVATE: 'false' }).OUTBOUND_ALLOW_PRIVATE).toBe(false);
  });
});
