import { useMutation, useQueryClient } from '@tanstack/react-query';
import { $api, api } from '../../lib/api/client';
import { useRefreshAccount } from '../../lib/account';
import { dateTime, money } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

/** Today's challenge: what to do, a progress bar, and the claim button once it is completed. */
export function ChallengePage() {
  usePageTitle('Daily challenge');
  const today = $api.useQuery('get', '/api/challenges');
  const client = useQueryClient();
  const refreshAccount = useRefreshAccount();
  const claim = useMutation({
    mutationFn: (challengeId: string) => api.POST('/api/challenges', { body: { challengeId } }).then((r) => r.data!),
    onSuccess: async () => {
      await Promise.all([client.invalidateQueries({ queryKey: ['get', '/api/challenges'] }), refreshAccount()]);
    },
  });
  if (today.isPending) return <Loading what="today's challenge" />;
  if (today.isError) return <ErrorMessage error={today.error} />;
  const { challenge: c, progress: p } = today.data;
  const unit = (v: number) => (c.type === 'trade_volume' ? money(v) : v.toLocaleString('en-US'));
  return (
    <>
      <h1>Daily challenge</h1>
      <section className="card" aria-labelledby="challenge-title">
        <h2 id="challenge-title">{c.title}</h2>
        <p>{c.description}</p>
        <p>
          Reward: {c.xpReward} XP and {money(c.cashReward)} · ends {dateTime(c.expiresAt)} (claimable until the end of the next UTC day)
        </p>
        <progress className="challenge-progress" max={100} value={p.percentComplete} aria-label="Challenge progress" />
        <p>
          {unit(p.current)} of {unit(p.target)} ({Math.floor(p.percentComplete)}%)
        </p>
        {p.claimed ? (
          <p role="status">Claimed. Come back tomorrow for the next one.</p>
        ) : (
          <button type="button" disabled={!p.completed || claim.isPending} onClick={() => claim.mutate(c.id)}>
            {claim.isPending ? 'Claiming…' : p.completed ? 'Claim reward' : 'Claim reward (complete it first)'}
          </button>
        )}
        {claim.isSuccess ? (
          <p role="status">
            You got {claim.data.xpReward} XP and {money(claim.data.cashReward)}; your balance is {money(claim.data.balance)}.
          </p>
        ) : null}
        {claim.isError ? <ErrorMessage error={claim.error} /> : null}
      </section>
    </>
  );
}
