import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { $api, api } from '../../lib/api/client';
import { InputField, SelectField } from '../../components/form-field';
import { ErrorMessage } from '../../components/error-message';
import type { StoredRun } from './stored-run';

const OWN = 'own';
const MAX_DAYS = 60;

const wholeIn = (text: string, min: number, max: number) => /^\d+$/.test(text.trim()) && Number(text) >= min && Number(text) <= max;

/** Starts a stepped run with the person's session (start_replay): days of their own (seed and days), or a suite scenario. */
export function StartForm({ onStarted }: { onStarted: (run: StoredRun) => void }) {
  const suite = $api.useQuery('get', '/api/replay-suite', {}, { staleTime: Infinity });
  const [choice, setChoice] = useState(OWN);
  const [seed, setSeed] = useState('7');
  const [days, setDays] = useState('1');
  const [cash, setCash] = useState('1000');
  const own = choice === OWN;
  const seedOk = wholeIn(seed, 0, 2_147_483_647);
  const daysOk = wholeIn(days, 1, MAX_DAYS);
  const cashOk = Number.isFinite(Number(cash)) && Number(cash) > 0 && Number(cash) <= 1_000_000;
  const valid = cashOk && (!own || (seedOk && daysOk));
  const start = useMutation({
    mutationFn: async () => {
      const body = own ? { seed: Number(seed), days: Number(days), bankroll: Number(cash) } : { scenario: choice, bankroll: Number(cash) };
      return (await api.POST('/api/replays', { body: { ...body, mode: 'step' } })).data!;
    },
    onSuccess: (started) => onStarted({ runId: started.runId, apiKey: started.apiKey }),
  });
  const options: [string, string][] = [
    [OWN, 'Days of my own choosing'],
    ...(suite.data?.scenarios ?? []).map((s): [string, string] => [s.name, `Suite scenario ${s.name} (${s.days} days)`]),
  ];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && !start.isPending) start.mutate();
  };
  return (
    <section className="card" aria-labelledby="replay-start">
      <h2 id="replay-start">Start a replay</h2>
      <form onSubmit={submit} className="replay-start">
        <SelectField
          label="What to replay"
          value={choice}
          onChange={(e) => setChoice(e.target.value)}
          options={options}
          help={own ? undefined : 'Ended suite scenarios count on the suite board.'}
        />
        {own ? (
          <>
            <InputField
              label="Seed"
              inputMode="numeric"
              value={seed}
              onChange={(e) => setSeed(e.target.value)}
              help="Any whole number: the same seed gives the same markets and news."
              error={seedOk ? undefined : 'Enter a whole number of 0 or more.'}
            />
            <InputField
              label="Days"
              inputMode="numeric"
              value={days}
              onChange={(e) => setDays(e.target.value)}
              help={`How many simulated days to play, 1 to ${MAX_DAYS}.`}
              error={daysOk ? undefined : `Enter a whole number from 1 to ${MAX_DAYS}.`}
            />
          </>
        ) : null}
        <InputField
          label="Starting cash (practice dollars)"
          inputMode="decimal"
          value={cash}
          onChange={(e) => setCash(e.target.value)}
          error={cashOk ? undefined : 'Enter an amount above $0 and up to $1,000,000.'}
        />
        {start.isError ? <ErrorMessage error={start.error} /> : null}
        <button type="submit" disabled={!valid || start.isPending}>
          {start.isPending ? 'Starting… (this takes a few seconds)' : 'Start replay'}
        </button>
      </form>
    </section>
  );
}
