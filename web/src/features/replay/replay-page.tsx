import { Link, useLocation } from 'wouter';
import { useAccount } from '../../lib/account';
import { PATHS, signInHref } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import './replay.css';
import { Loading } from '../../components/loading';
import { StartForm } from './start-form';
import { RunView } from './run-view';
import { useStoredRun } from './stored-run';
import { RunList } from './run-list';

/**
 * A replay as a person plays it: start a run (a seed and days, or a suite scenario), then step its clock to the next
 * news item, buy, state forecasts, and end it to see the record. The run's calls use the run's own key (lib/api/run-client.ts).
 */
export function ReplayPage() {
  usePageTitle('Replay');
  const [location] = useLocation();
  const account = useAccount();
  const [run, setRun] = useStoredRun();
  return (
    <>
      <h1>Replay</h1>
      <p>
        Play through simulated days of markets at your own pace. News breaks as the replay clock moves; buy, say what you think the chances are, and when you
        end the replay every market settles and you see how good your forecasts were. It uses its own practice money: your account is not touched.{' '}
        <Link href={PATHS.replaySuite}>See the suite board</Link>.
      </p>
      {run ? (
        <RunView run={run} onLeave={() => setRun(null)} />
      ) : account.isPending ? (
        <Loading what="your account" />
      ) : account.data ? (
        <>
          <RunList onResume={setRun} />
          <StartForm onStarted={setRun} />
        </>
      ) : (
        <p>
          <Link href={signInHref(location)}>Sign in</Link> or <Link href={PATHS.signUp}>create an account</Link> to start a replay.
        </p>
      )}
    </>
  );
}
