import { useEffect } from 'react';

const SITE = 'Paper Markets';

/** Sets the document title (what a tab and a screen reader announce) for the page on screen. */
export function usePageTitle(title: string | undefined) {
  useEffect(() => {
    document.title = title ? `${title} · ${SITE}` : SITE;
  }, [title]);
}

export { SITE };
