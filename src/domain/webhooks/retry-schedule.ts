/**
 * When a failed delivery is tried again: after try n (1-based) of a round, wait schedule[n-1] seconds plus up to
 * `jitter` of that at random (so receivers that failed together are not retried together); past the schedule's
 * end the delivery has failed. null: no retry.
 */
export function nextAttemptAt(schedule: readonly number[], tries: number, now: Date, random: () => number = Math.random, jitter = 0.2): Date | null {
  const base = schedule[tries - 1];
  if (base === undefined) return null;
  return new Date(now.getTime() + Math.round(base * 1000 * (1 + jitter * random())));
}
