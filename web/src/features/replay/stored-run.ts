import { useCallback, useState } from 'react';

/** The run this tab is playing: its id and its key (start_replay shows the key once). */
export interface StoredRun {
  runId: string;
  apiKey: string;
}

const KEY = 'replay-run';

function read(): StoredRun | null {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    const parsed = raw ? (JSON.parse(raw) as Partial<StoredRun>) : null;
    return parsed && typeof parsed.runId === 'string' && typeof parsed.apiKey === 'string' ? { runId: parsed.runId, apiKey: parsed.apiKey } : null;
  } catch {
    return null;
  }
}

/**
 * The run being played, kept in sessionStorage (this tab only, gone when it closes), so a reload or a visit to another
 * page comes back to the same run; the key never leaves the tab's storage.
 */
export function useStoredRun(): [StoredRun | null, (run: StoredRun | null) => void] {
  const [run, setRun] = useState<StoredRun | null>(read);
  const set = useCallback((next: StoredRun | null) => {
    try {
      if (next) window.sessionStorage.setItem(KEY, JSON.stringify(next));
      else window.sessionStorage.removeItem(KEY);
    } catch {
      // No storage: the run lasts as long as the page.
    }
    setRun(next);
  }, []);
  return [run, set];
}
