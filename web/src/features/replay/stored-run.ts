import { useCallback, useState } from 'react';

/** The run this tab is playing: its id and its key (start_replay shows the key once). */
export interface StoredRun {
  runId: string;
  apiKey: string;
}

/** The tab's current run (sessionStorage): a reload or another page of the tab comes back to it. */
const CURRENT = 'replay-run';
/**
 * Every run key this browser started a run with, by run (localStorage): any tab of the browser can resume a run from
 * the list (list_replays names the runs, never their keys). A run key trades only inside its run.
 */
const KEYS = 'replay-run-keys';

function parse(raw: string | null): StoredRun | null {
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<StoredRun>) : null;
    return parsed && typeof parsed.runId === 'string' && typeof parsed.apiKey === 'string' ? { runId: parsed.runId, apiKey: parsed.apiKey } : null;
  } catch {
    return null;
  }
}

function keys(): Record<string, string> {
  try {
    const parsed = JSON.parse(window.localStorage.getItem(KEYS) ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** This browser's key of a run, if one of its tabs started it. */
export function runKeyOf(runId: string): string | null {
  const key = keys()[runId];
  return typeof key === 'string' ? key : null;
}

/** Forgets a run's key (the run was deleted or is not the person's). */
export function forgetRunKey(runId: string): void {
  try {
    const all = keys();
    delete all[runId];
    window.localStorage.setItem(KEYS, JSON.stringify(all));
  } catch {
    // No storage: nothing was kept.
  }
}

function read(): StoredRun | null {
  try {
    return parse(window.sessionStorage.getItem(CURRENT));
  } catch {
    return null;
  }
}

/**
 * The run being played in this tab, kept in sessionStorage, with its key also kept for the browser's other tabs
 * (localStorage); null leaves the run (it goes on, and stays in the list of runs).
 */
export function useStoredRun(): [StoredRun | null, (run: StoredRun | null) => void] {
  const [run, setRun] = useState<StoredRun | null>(read);
  const set = useCallback((next: StoredRun | null) => {
    try {
      if (next) {
        window.sessionStorage.setItem(CURRENT, JSON.stringify(next));
        window.localStorage.setItem(KEYS, JSON.stringify({ ...keys(), [next.runId]: next.apiKey }));
      } else window.sessionStorage.removeItem(CURRENT);
    } catch {
      // No storage: the run lasts as long as the page.
    }
    setRun(next);
  }, []);
  return [run, set];
}
