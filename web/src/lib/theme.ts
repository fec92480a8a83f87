import { useSyncExternalStore } from 'react';

/** The scheme drawn: the person's choice kept in localStorage, else the system's (prefers-color-scheme). */
export type Scheme = 'light' | 'dark';

/** The localStorage key of the person's choice; web/src/boot.ts reads it too, before the app runs. */
export const THEME_KEY = 'theme';
const CHANGED = 'themechange';
const SYSTEM_DARK = '(prefers-color-scheme: dark)';

/** The stored choice, or null (follow the system). Storage can be refused (private modes): then nothing is stored. */
function storedChoice(): Scheme | null {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Puts the stored choice on <html data-theme> (dark.css draws from it; without it the system's scheme rules). Called as
 * the app starts (main.tsx) and, on pages with the service's first view, by boot.ts as soon as it runs.
 */
export function applyStoredTheme(): void {
  const choice = storedChoice();
  if (choice) document.documentElement.dataset.theme = choice;
  else delete document.documentElement.dataset.theme;
}

/** The scheme drawn now. */
export function currentScheme(): Scheme {
  const set = document.documentElement.dataset.theme;
  if (set === 'light' || set === 'dark') return set;
  return window.matchMedia(SYSTEM_DARK).matches ? 'dark' : 'light';
}

/** Chooses a scheme for good (kept in localStorage) and tells every part that draws with colours (the charts). */
export function chooseScheme(scheme: Scheme): void {
  try {
    localStorage.setItem(THEME_KEY, scheme);
  } catch {
    // Not kept past this page; drawn all the same.
  }
  document.documentElement.dataset.theme = scheme;
  window.dispatchEvent(new Event(CHANGED));
}

function subscribe(onChange: () => void): () => void {
  const media = window.matchMedia(SYSTEM_DARK);
  // Another tab's choice arrives as a storage event: this tab follows it.
  const storage = (e: StorageEvent) => {
    if (e.key !== THEME_KEY) return;
    applyStoredTheme();
    onChange();
  };
  media.addEventListener('change', onChange);
  window.addEventListener(CHANGED, onChange);
  window.addEventListener('storage', storage);
  return () => {
    media.removeEventListener('change', onChange);
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener('storage', storage);
  };
}

/** The scheme drawn, kept current (a choice, another tab's choice, the system's change). Light on the server. */
export function useScheme(): Scheme {
  return useSyncExternalStore(subscribe, currentScheme, () => 'light');
}

/** The page's colours (styles.css, dark.css) as a canvas needs them: resolved values of the custom properties. */
export function chartColours(): { ink: string; muted: string; line: string; grid: string; card: string } {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string) => style.getPropertyValue(name).trim();
  return { ink: v('--fg'), muted: v('--muted'), line: v('--yes'), grid: v('--grid'), card: v('--card') };
}
