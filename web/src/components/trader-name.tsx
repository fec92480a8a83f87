import { Link } from 'wouter';
import { traderHref } from '../lib/paths';

/** A board row's trader: a link to their profile, "(you)" on the reader's own row, and what kind of trader it is. */
export function TraderName({ userId, displayName, mine, kind }: { userId: string; displayName: string; mine: boolean; kind: 'reference' | 'agent' | null }) {
  return (
    <>
      <Link href={traderHref(userId)}>{displayName}</Link>
      {mine ? <span className="you"> (you)</span> : null}
      {kind ? <span className="muted"> ({kind})</span> : null}
    </>
  );
}
