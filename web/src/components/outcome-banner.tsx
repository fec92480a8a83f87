import { date } from '../lib/format';

/**
 * A resolved market's outcome, at the top of its page as the venues show it: a status banner with the winner as its
 * heading, when it resolved and what it paid (`paid`, in the caller's words: a void pays differently per kind of market).
 */
export function OutcomeBanner({ outcome, resolvedAt, paid }: { outcome: string; resolvedAt: string | null; paid: string }) {
  return (
    <div className="outcome-banner" role="status">
      <h2>{outcome === 'VOID' ? 'Resolved void' : `Resolved: ${outcome}`}</h2>
      <p>
        {paid}
        {resolvedAt ? ` Resolved ${date(resolvedAt)}; trading has ended.` : ' Trading has ended.'}
      </p>
    </div>
  );
}
