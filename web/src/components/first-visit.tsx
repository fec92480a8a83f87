import { useState } from 'react';
import { Link } from 'wouter';
import { useAccount } from '../lib/account';
import { cents, money } from '../lib/format';
import { marketHref, PATHS } from '../lib/paths';
import './onboarding.css';

/** Where the explainer's dismissal is kept: once closed, it stays closed on this browser. */
export const EXPLAINER_DISMISSED_KEY = 'onboarding.explainer.dismissed';
const FIRST_STAKE = 10;

const dismissedBefore = () => {
  try {
    return window.localStorage.getItem(EXPLAINER_DISMISSED_KEY) === '1';
  } catch {
    return false; // storage refused (private mode): show it, a close still hides it for this visit
  }
};

/** The market a first trade is suggested on: the page's most traded one, from the list it reads anyway. */
export interface SuggestedMarket {
  slug: string;
  question: string;
  yesPrice?: number | null;
}

/**
 * A first visit's welcome on the home page: what a share pays and that the money is virtual, then a suggested first
 * trade (`market`, the most traded open one, with what a 10-dollar stake would pay if right). Closed once, it stays
 * closed. It reads nothing of its own: a person browsing at their pace has a budget of calls (test/web/browsing.test.ts).
 */
export function FirstVisit({ market }: { market: SuggestedMarket | undefined }) {
  const [dismissed, setDismissed] = useState(dismissedBefore);
  const account = useAccount();
  const signedIn = Boolean(account.data);
  if (dismissed || account.isPending) return null;
  const close = () => {
    try {
      window.localStorage.setItem(EXPLAINER_DISMISSED_KEY, '1');
    } catch {
      // kept for this visit only
    }
    setDismissed(true);
  };
  const yes = market?.yesPrice ?? null;
  return (
    <section className="first-visit card" aria-labelledby="first-visit-heading">
      <h2 id="first-visit-heading">New here? How it works</h2>
      <ul>
        <li>
          Each question has YES and NO shares. A <strong>YES share pays $1 if the answer is YES</strong>, and $0 if not (NO shares the reverse).
        </li>
        <li>The price is the crowd’s probability: a YES share at 62¢ means the market thinks 62%.</li>
        <li>
          <strong>Virtual money only.</strong> You start with $1,000 of play money; nothing here is real money or advice.
        </li>
      </ul>
      {market && yes !== null && yes > 0 ? (
        <p className="first-trade">
          Try a first trade: <Link href={marketHref(market.slug)}>{market.question}</Link> — YES is at {cents(yes)}, so {money(FIRST_STAKE)} on YES would pay{' '}
          {money(FIRST_STAKE / yes)} if it happens.
        </p>
      ) : null}
      <p className="first-visit-actions">
        {signedIn ? null : (
          <Link href={PATHS.signUp} className="button-link">
            Create a free account
          </Link>
        )}
        <button type="button" className="secondary" onClick={close}>
          Got it
        </button>
      </p>
    </section>
  );
}
