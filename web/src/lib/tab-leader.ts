/**
 * One leader among a browser's tabs, for a stream they share (prices, an account's events): the leader opens the stream
 * and passes what it hears on to the others over a BroadcastChannel.
 *
 * Web Locks decide where the browser has them. They exist only in a secure context (https, localhost): over plain http
 * on a host name (the documented HAProxy deployment) the tabs elect among themselves instead, over a BroadcastChannel
 * (which insecure pages have) and a lease in localStorage:
 * - the leader renews the lease (its tab and an expiry) every HEARTBEAT_MS, and says `lead` to each claim it hears;
 * - a tab that finds no lease, or a stale one, claims: it says `claim` and, if neither a leader nor a claim of a
 *   smaller tab id answers within CLAIM_MS, leads (ties go to the smaller id, so two claimants settle on one);
 * - a leader that finds the lease another's (it slept past its lease) or hears another leader of a smaller id steps down;
 * - a leader leaving (pagehide) says `release` and drops the lease, so a waiting tab claims at once.
 * A background tab's timers may run once a minute, but it hears messages at once: a claim made while the leader's
 * lease looks stale is answered by a living leader, which keeps its place.
 */

/** Starts leading (the tab now opens the stream); returns the end of its lead. */
export type Lead = () => () => void;

const HEARTBEAT_MS = 1_000;
/** A lease not renewed for this long is stale (several missed heartbeats). */
const LEASE_MS = 4_000;
/** How long a claimant waits for a leader's or a smaller claimant's answer. */
const CLAIM_MS = 250;

type Message = { kind: 'claim' | 'lead' | 'release'; tab: string };

interface Lease {
  tab: string;
  until: number;
}

function asMessage(d: unknown): Message | null {
  const m = d as Partial<Message> | null;
  return (m?.kind === 'claim' || m?.kind === 'lead' || m?.kind === 'release') && typeof m.tab === 'string' ? { kind: m.kind, tab: m.tab } : null;
}

/**
 * Takes part, under `name`, in the election of one tab of this browser to lead; `lead` runs while this tab leads.
 * Returns the tab's leave (it then stops leading, and another tab takes over). Without BroadcastChannel, the tab leads itself.
 */
export function leadOneTab(name: string, lead: Lead): () => void {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (typeof BroadcastChannel === 'undefined') {
    const end = lead();
    return end;
  }
  if (locks) {
    const stop = new AbortController();
    // Held until the tab leaves or closes (the promise settles only then); the browser then gives it to a waiting tab.
    locks
      .request(name, { signal: stop.signal }, () => {
        const end = lead();
        return new Promise<void>((resolve) =>
          stop.signal.addEventListener(
            'abort',
            () => {
              end();
              resolve();
            },
            { once: true },
          ),
        );
      })
      .catch(() => undefined); // aborted while waiting: the tab left before its turn came
    return () => stop.abort();
  }
  return leaseElection(name, lead);
}

function leaseElection(name: string, lead: Lead): () => void {
  const me = Math.random().toString(36).slice(2);
  const key = `${name}:lease`;
  const channel = new BroadcastChannel(`${name}:leader`);
  let end: (() => void) | null = null;
  let claim: ReturnType<typeof setTimeout> | undefined;
  let claiming = false;
  let away = false;

  const readLease = (): Lease | null => {
    try {
      const l = JSON.parse(localStorage.getItem(key) ?? 'null') as Partial<Lease> | null;
      return typeof l?.tab === 'string' && typeof l.until === 'number' ? { tab: l.tab, until: l.until } : null;
    } catch {
      return null; // no storage (blocked): the claims and answers over the channel still elect
    }
  };
  const writeLease = () => {
    try {
      localStorage.setItem(key, JSON.stringify({ tab: me, until: Date.now() + LEASE_MS }));
    } catch {
      // as in readLease
    }
  };
  const dropLease = () => {
    try {
      if (readLease()?.tab === me) localStorage.removeItem(key);
    } catch {
      // as in readLease
    }
  };
  const post = (kind: Message['kind']) => channel.postMessage({ kind, tab: me } satisfies Message);

  const becomeLeader = () => {
    claiming = false;
    if (end || away) return;
    writeLease();
    post('lead');
    end = lead();
  };
  const stepDown = () => {
    if (!end) return;
    const stop = end;
    end = null;
    stop();
  };
  const backOff = () => {
    claiming = false;
    clearTimeout(claim);
  };
  const startClaim = () => {
    if (end || claiming || away) return;
    claiming = true;
    post('claim');
    claim = setTimeout(becomeLeader, CLAIM_MS);
  };

  // The leader renews its lease; the others look for a missing or stale one.
  const check = () => {
    if (away) return;
    const lease = readLease();
    if (end) {
      if (lease && lease.tab !== me && lease.until > Date.now()) stepDown();
      else writeLease();
    } else if (!lease || lease.until <= Date.now()) startClaim();
  };
  const heartbeat = setInterval(check, HEARTBEAT_MS);

  channel.onmessage = (e: MessageEvent) => {
    const m = asMessage(e.data);
    if (!m || m.tab === me || away) return;
    switch (m.kind) {
      case 'claim':
        if (end) {
          writeLease();
          post('lead');
        } else if (claiming) {
          if (m.tab < me) backOff();
          else post('claim'); // the other may have started after this claim was said
        }
        return;
      case 'lead':
        if (claiming) backOff();
        else if (end) {
          // Two leaders (one slept past its lease): the smaller id keeps the lead, the other steps down.
          if (m.tab < me) stepDown();
          else {
            writeLease();
            post('lead');
          }
        }
        return;
      case 'release':
        startClaim();
        return;
    }
  };

  // Leaving hands over at once; a page back from the back-forward cache takes part again.
  const onHide = () => {
    away = true;
    backOff();
    if (end) {
      stepDown();
      dropLease();
      post('release');
    }
  };
  const onShow = (e: PageTransitionEvent) => {
    if (!e.persisted) return;
    away = false;
    check();
  };
  addEventListener('pagehide', onHide);
  addEventListener('pageshow', onShow);
  check();

  return () => {
    onHide();
    clearInterval(heartbeat);
    removeEventListener('pagehide', onHide);
    removeEventListener('pageshow', onShow);
    channel.close();
  };
}
