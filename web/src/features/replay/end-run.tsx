import { useState } from 'react';

/**
 * "End replay", asked twice: ending settles every market and freezes the run for good, so the first press only asks
 * (issue 53, item 6); "Keep playing" takes the question back.
 */
export function EndRunButton({ disabled, onEnd, label = 'End replay' }: { disabled: boolean; onEnd: () => void; label?: string }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="secondary danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span role="group" aria-label="Confirm ending the replay" className="end-confirm">
      <span>End this replay? Every market settles now and the run stops trading for good.</span>{' '}
      <button
        type="button"
        className="danger"
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onEnd();
        }}
      >
        Yes, end it
      </button>{' '}
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Keep playing
      </button>
    </span>
  );
}
