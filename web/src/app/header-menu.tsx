import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';

/**
 * A disclosure menu of the header (More, the account menu): a button that shows and hides a list of links. It closes on
 * a page change, on Escape (focus back on its button) and on a click elsewhere. `children` are the list's <li>s.
 */
export function HeaderMenu({
  button,
  label,
  current = false,
  className,
  children,
}: {
  button: ReactNode;
  /** The button's accessible name. */
  label: string;
  /** Whether the page shown is one of the menu's (the button is then marked like a current link). */
  current?: boolean;
  className: string;
  children: ReactNode;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [location] = useLocation();
  const box = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => setOpen(false), [location]);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('click', away);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('click', away);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);
  return (
    <div className="menu" ref={box}>
      <button
        ref={toggle}
        type="button"
        className={`${className}${current ? ' current' : ''}`}
        aria-label={label}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        {button}
      </button>
      <ul id={id} className="menu-list" hidden={!open}>
        {children}
      </ul>
    </div>
  );
}
