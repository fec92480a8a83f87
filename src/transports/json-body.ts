/** JSON text of results the domain has frozen, by object: such a result is served again as it is. */
const serialized = new WeakMap<object, string>();

/**
 * A result as JSON text. A frozen result (a board the leaderboard reuses for many requests) is
 * serialised once, however many requests it answers: 100 rows are some 30 kB, and stringifying
 * them on every request was most of the CPU a cached board cost.
 */
export function jsonBody(result: unknown): string {
  if (result === null || typeof result !== 'object' || !Object.isFrozen(result)) return JSON.stringify(result);
  let text = serialized.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    serialized.set(result, text);
  }
  return text;
}
