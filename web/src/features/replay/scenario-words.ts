import type { Ok } from '../../lib/api/client';

type Scenario = Ok<'/api/replays', 'get'>['runs'][number]['scenario'];

/** What a run replays, in words: on its clock and in the list of runs. */
export function scenarioWords(s: Scenario): string {
  if (!('seed' in s)) return 'Recorded markets';
  return s.name ? `Suite scenario ${s.name}` : `Seed ${s.seed}, ${s.days} ${s.days === 1 ? 'day' : 'days'}`;
}
