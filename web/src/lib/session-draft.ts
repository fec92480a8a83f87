import { useEffect, useState } from 'react';

/** Reads a stored draft; storage may be unavailable (private mode, disabled): then there is no draft. */
function readDraft(key: string): string | null {
  try {
    return window.sessionStorage.getItem(`draft:${key}`);
  } catch {
    return null;
  }
}

/**
 * A form field's text kept in sessionStorage (this tab only) as it is typed, so a lost session, a sign-in and the
 * way back to the page do not lose it. Keys name the form and what it is for (e.g. `trade-amount:<market id>`).
 */
export function useSessionDraft(key: string, initial: string): [string, (next: string) => void] {
  const [text, setText] = useState(() => readDraft(key) ?? initial);
  useEffect(() => {
    try {
      window.sessionStorage.setItem(`draft:${key}`, text);
    } catch {
      // No storage: the text lives as long as the page, as before.
    }
  }, [key, text]);
  return [text, setText];
}
