import { useState } from 'react';
import { pageOrigin } from '../lib/api/client';

/**
 * Shares a page of this site: the system share sheet where the browser has one (phones), else the link copied to the
 * clipboard, said so politely. `path` is the page's own path; the link is absolute on this origin.
 */
export function ShareButton({ path, title, what }: { path: string; title: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const url = new URL(path, pageOrigin()).toString();
  const share = async () => {
    if (typeof navigator.share === 'function') {
      try {
        await navigator.share({ title, url });
        return;
      } catch (err) {
        // The person closed the sheet: nothing to say. Any other failure falls back to copying.
        if (err instanceof DOMException && err.name === 'AbortError') return;
      }
    }
    try {
      await navigator.clipboard.writeText(url);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span className="share">
      <button type="button" className="secondary" onClick={() => void share()} aria-label={`Share ${what}`}>
        Share
      </button>
      <span role="status" className="copy-status">
        {state === 'copied' ? 'Link copied.' : state === 'failed' ? `Copy failed: the link is ${url}` : ''}
      </span>
    </span>
  );
}
