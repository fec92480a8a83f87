import { Link } from 'wouter';
import type { Ok } from '../../lib/api/client';
import { positionHref, type Position } from '../../lib/portfolio';
import { PATHS, marketHref } from '../../lib/paths';
import { signedMoney } from '../../lib/format';

export type Notification = Ok<'/api/notifications', 'get'>['notifications'][number];

/** Whether a notification's words come from the person's positions (a settlement names its position in ref). */
export const needsPositions = (n: Notification) => n.type === 'resolution';

/**
 * A notification in the app's words, from its type and ref: the service's message is written for agents (it names methods
 * and prints amounts to 6 decimals), so the app writes its own for the types that need it. Badge, level-up and referral
 * messages are plain sentences without amounts, and unknown types keep the service's message.
 */
export function NotificationBody({ n, positions }: { n: Notification; positions: Position[] | undefined }) {
  switch (n.type) {
    case 'challenge':
      return (
        <p>
          You completed today&apos;s challenge. Claim your reward on the <Link href={PATHS.challenge}>challenge page</Link>.
        </p>
      );
    case 'resolution': {
      const p = positions?.find((x) => x.id === n.ref);
      if (!p)
        return (
          <p>
            A market you held has resolved and your position was settled: see your <Link href={PATHS.portfolio}>portfolio</Link>.
          </p>
        );
      return (
        <p>
          <Link href={positionHref(p)}>{p.question}</Link> has resolved. Your {p.outcomeLabel ?? p.outcome} position was settled: it realized{' '}
          {signedMoney(p.realizedPnl)} in all.
        </p>
      );
    }
    case 'price_alert': {
      // The title names the market ("Price alert: {question}"); the link to its page carries that name.
      const marketId = alertMarketId(n.ref);
      const question = n.title.replace(/^Price alert: /, '');
      if (!marketId) return <p>{n.message}</p>;
      return (
        <p>
          <Link href={marketHref(marketId)}>{question}</Link>: {n.message}
        </p>
      );
    }
    default:
      return <p>{n.message}</p>;
  }
}

/** A price alert's market, from its ref (`{marketId}:{above|below}:{firedAtMs}`); a market page's address takes its id. */
export function alertMarketId(ref: string | null | undefined): string | null {
  const m = /^(.+):(above|below):\d+$/.exec(ref ?? '');
  return m ? m[1]! : null;
}
