import { useQueryClient } from '@tanstack/react-query';
import { $api } from '../../lib/api/client';
import { dateTime } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { EndRunButton } from './end-run';
import { runKeyOf, type StoredRun } from './stored-run';
import { scenarioWords } from './scenario-words';

const LIST = ['get', '/api/replays'] as const;

/**
 * The person's replay runs (list_replays), newest first: any tab resumes one this browser started (its key is kept
 * here, see stored-run.ts) and ends any running one, after a confirmation. A run started in another browser is ended
 * here but played there: list_replays never gives keys out.
 */
export function RunList({ onResume }: { onResume: (run: StoredRun) => void }) {
  const client = useQueryClient();
  const runs = $api.useQuery('get', '/api/replays', {}, { staleTime: 0 });
  const end = $api.useMutation('post', '/api/replays/{runId}/end', { onSuccess: () => client.invalidateQueries({ queryKey: LIST }) });
  return (
    <section className="card" aria-labelledby="replay-runs">
      <h2 id="replay-runs">Your replays</h2>
      {runs.isPending ? (
        <Loading what="your replays" />
      ) : runs.isError ? (
        <ErrorMessage error={runs.error} />
      ) : runs.data.runs.length === 0 ? (
        <p className="muted">No replays yet: start one below.</p>
      ) : (
        <ul aria-label="Your replays">
          {runs.data.runs.map((r) => {
            const key = runKeyOf(r.runId);
            const running = r.state === 'running';
            return (
              <li key={r.runId}>
                <p>
                  <strong>{scenarioWords(r.scenario)}</strong> · {running ? 'running' : 'ended'}, at <time dateTime={r.clock}>{dateTime(r.clock)}</time> ·
                  started {dateTime(r.createdAt)}
                </p>
                <div className="tabs">
                  {key ? (
                    <button type="button" onClick={() => onResume({ runId: r.runId, apiKey: key })}>
                      {running ? 'Resume' : 'See the record'}
                    </button>
                  ) : (
                    <span className="muted">Started in another browser: play it there.</span>
                  )}{' '}
                  {running ? (
                    <EndRunButton
                      disabled={end.isPending && end.variables?.params.path.runId === r.runId}
                      onEnd={() => end.mutate({ params: { path: { runId: r.runId } } })}
                    />
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {end.isError ? <ErrorMessage error={end.error} /> : null}
    </section>
  );
}
