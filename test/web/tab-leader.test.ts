/**
 * Loaded by path, not imported: the module uses the page's globals (navigator, localStorage, addEventListener), and an
 * import would bring it under the service's tsconfig, which has no DOM types (tsc -p web checks it).
 */
const { leadOneTab } = jest.requireActual<{ leadOneTab: (name: string, lead: () => () => void) => () => void }>('../../web/src/lib/tab-leader');

/**
 * The election of one leader tab without Web Locks (an insecure origin): Node has BroadcastChannel (delivered between
 * instances of one process, as between a browser's tabs) and no navigator.locks, so each leadOneTab call here is one
 * tab of the lease election; localStorage and the window's events are stood in for.
 */
describe('one leader among tabs without Web Locks (web/src/lib/tab-leader.ts)', () => {
  const store = new Map<string, string>();
  const win = new EventTarget();
  const g = globalThis as Record<string, unknown>;
  beforeAll(() => {
    g.localStorage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    };
    g.addEventListener = win.addEventListener.bind(win);
    g.removeEventListener = win.removeEventListener.bind(win);
  });
  afterAll(() => {
    delete g.localStorage;
    delete g.addEventListener;
    delete g.removeEventListener;
  });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let n = 0;

  /** A tab standing for leader: `leading` says whether it leads now; `leads` counts its turns. */
  function tab(name: string) {
    const t = { leading: false, leads: 0, leave: () => undefined as void };
    t.leave = leadOneTab(name, () => {
      t.leading = true;
      t.leads += 1;
      return () => {
        t.leading = false;
      };
    });
    return t;
  }

  test('when five tabs stand at once, then exactly one leads, and it keeps the lead while it lives', async () => {
    const name = `t${++n}`;
    const tabs = Array.from({ length: 5 }, () => tab(name));
    await wait(600);
    expect(tabs.filter((t) => t.leading)).toHaveLength(1);
    await wait(2_500);
    expect(tabs.filter((t) => t.leading)).toHaveLength(1);
    expect(tabs.reduce((s, t) => s + t.leads, 0)).toBe(1);
    for (const t of tabs) t.leave();
  }, 10_000);

  test('when the leader leaves, then another tab leads at once, not after the lease runs out', async () => {
    const name = `t${++n}`;
    const tabs = Array.from({ length: 4 }, () => tab(name));
    await wait(600);
    const leader = tabs.find((t) => t.leading)!;
    leader.leave();
    expect(leader.leading).toBe(false);
    await wait(500);
    const rest = tabs.filter((t) => t !== leader);
    expect(rest.filter((t) => t.leading)).toHaveLength(1);
    for (const t of rest) t.leave();
  }, 10_000);

  test('when the leader goes without a word (its tab crashed), then another tab leads once its lease is stale', async () => {
    const name = `t${++n}`;
    store.set(`${name}:lease`, JSON.stringify({ tab: 'gone', until: Date.now() + 1_500 }));
    const tabs = Array.from({ length: 3 }, () => tab(name));
    await wait(600);
    expect(tabs.filter((t) => t.leading)).toHaveLength(0);
    await wait(2_500);
    expect(tabs.filter((t) => t.leading)).toHaveLength(1);
    for (const t of tabs) t.leave();
  }, 10_000);

  test('when a leader finds the lease taken by another tab (it slept past its lease), then it steps down', async () => {
    const name = `t${++n}`;
    const only = tab(name);
    await wait(600);
    expect(only.leading).toBe(true);
    store.set(`${name}:lease`, JSON.stringify({ tab: 'other', until: Date.now() + 60_000 }));
    await wait(1_500);
    expect(only.leading).toBe(false);
    only.leave();
  }, 10_000);

  test('when a page is hidden for good (pagehide), then its lead ends and its lease is dropped', async () => {
    const name = `t${++n}`;
    const only = tab(name);
    await wait(600);
    expect(only.leading).toBe(true);
    expect(store.has(`${name}:lease`)).toBe(true);
    win.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: false }));
    expect(only.leading).toBe(false);
    expect(store.has(`${name}:lease`)).toBe(false);
    only.leave();
  }, 10_000);
});
