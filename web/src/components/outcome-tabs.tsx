/** The YES / NO choice of a buy ticket: two pressed-state buttons; `onPick` also resets what the last buy showed. */
export function OutcomeTabs({ outcome, onPick }: { outcome: 'YES' | 'NO'; onPick: (o: 'YES' | 'NO') => void }) {
  return (
    <div className="tabs" role="group" aria-label="Outcome">
      {(['YES', 'NO'] as const).map((o) => (
        <button key={o} type="button" className={`secondary outcome-${o.toLowerCase()}`} aria-pressed={outcome === o} onClick={() => onPick(o)}>
          Buy {o}
        </button>
      ))}
    </div>
  );
}
