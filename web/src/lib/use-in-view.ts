import { useEffect, useRef, useState, type RefObject } from 'react';

/**
 * Whether the element has come within `margin` of the viewport (once true, it stays true): a section below the fold
 * reads its data only when the person scrolls to it, so opening a page costs only the reads it shows.
 */
export function useInView<T extends Element>(margin = '200px'): [RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (seen || !el) return;
    if (typeof IntersectionObserver === 'undefined') {
      setSeen(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setSeen(true);
      },
      { rootMargin: margin },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [seen, margin]);
  return [ref, seen];
}
