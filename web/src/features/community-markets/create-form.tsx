import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../../lib/api/client';
import { useAccount, useRefreshAccount } from '../../lib/account';
import { money } from '../../lib/format';
import { communityMarketHref } from '../../lib/paths';
import { ErrorMessage } from '../../components/error-message';
import { InputField, TextAreaField } from '../../components/form-field';
import { FUNDING_START, LIMITS, checkDraft, hasProblems, openingOf, type Draft } from './limits';
import { CATEGORY_LIST_ID } from './catalogue-categories';

const EMPTY: Draft = { question: '', description: '', category: '', outcomes: ['Yes', 'No'], endDate: '', liquidity: String(FUNDING_START), opening: ['', ''] };

/**
 * Create a community market; every SPEC limit is shown next to its field and checked before sending. The market maker's funding
 * is a field of its own, sent every time, and the submit button says what creating costs.
 */
export function CreateCommunityMarketForm() {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const account = useAccount();
  const refreshAccount = useRefreshAccount();
  const [checked, setChecked] = useState(false);
  const [, navigate] = useLocation();
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () =>
      api
        .POST('/api/user-markets', {
          body: {
            question: draft.question.trim(),
            ...(draft.description.trim() ? { description: draft.description } : {}),
            category: draft.category.trim(),
            outcomes: draft.outcomes.map((o) => o.trim()),
            endDate: new Date(draft.endDate).toISOString(),
            liquidity: Number(draft.liquidity),
            ...(Array.isArray(opening) ? { openingProbabilities: opening } : {}),
          },
        })
        .then((r) => r.data!),
    onSuccess: async (market) => {
      // The funding left the person's cash: the header reads the account again.
      await Promise.all([client.invalidateQueries({ queryKey: ['get', '/api/user-markets'] }), refreshAccount()]);
      navigate(communityMarketHref(market.slug));
    },
  });
  const available = account.data?.available;
  const problems = checkDraft(draft, new Date(), available);
  const opening = openingOf(draft);
  const funding = Number(draft.liquidity);
  const cost = draft.liquidity.trim() !== '' && Number.isFinite(funding) ? money(funding) : '—';
  const shown = checked ? problems : {};
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const setOutcome = (i: number, v: string) => set({ outcomes: draft.outcomes.map((o, j) => (j === i ? v : o)) });
  const setOpening = (i: number, v: string) => set({ opening: draft.outcomes.map((_, j) => (j === i ? v : (draft.opening[j] ?? ''))) });
  const remove = (i: number) => set({ outcomes: draft.outcomes.filter((_, j) => j !== i), opening: draft.opening.filter((_, j) => j !== i) });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (!hasProblems(problems)) create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="create-heading" className="card">
      <h2 id="create-heading">Create a community market</h2>
      <InputField
        label="Question"
        value={draft.question}
        maxLength={LIMITS.question.max}
        onChange={(e) => set({ question: e.target.value })}
        help={`${LIMITS.question.min} to ${LIMITS.question.max} characters · ${draft.question.trim().length} so far`}
        error={shown.question}
      />
      <TextAreaField
        label="Resolution criteria (optional)"
        rows={4}
        value={draft.description}
        maxLength={LIMITS.description.max}
        onChange={(e) => set({ description: e.target.value })}
        help={`At most ${LIMITS.description.max} characters · ${draft.description.length} so far`}
        error={shown.description}
      />
      <InputField
        label="Category"
        value={draft.category}
        maxLength={LIMITS.category.max}
        onChange={(e) => set({ category: e.target.value })}
        list={CATEGORY_LIST_ID}
        help="Pick one of the catalogue's categories (the list offers them as you type), so the market sits beside its peers."
        error={shown.category}
      />
      <fieldset>
        <legend>
          Outcomes ({LIMITS.outcomes.min} to {LIMITS.outcomes.max}, each {LIMITS.outcome.min} to {LIMITS.outcome.max} characters)
        </legend>
        {draft.outcomes.map((o, i) => (
          <div key={i} className="outcome-row">
            <InputField
              label={`Outcome ${i + 1}`}
              value={o}
              maxLength={LIMITS.outcome.max}
              onChange={(e) => setOutcome(i, e.target.value)}
              error={shown.outcome?.[i]}
            />
            <InputField
              label={`Opening chance of ${o.trim() || `#${i + 1}`} (%)`}
              inputMode="decimal"
              className="opening-chance"
              value={draft.opening[i] ?? ''}
              onChange={(e) => setOpening(i, e.target.value)}
              placeholder={(100 / draft.outcomes.length).toFixed(1)}
            />
            {draft.outcomes.length > LIMITS.outcomes.min ? (
              <button type="button" className="secondary" aria-label={`Remove outcome ${i + 1}`} onClick={() => remove(i)}>
                Remove
              </button>
            ) : null}
          </div>
        ))}
        {draft.outcomes.length < LIMITS.outcomes.max ? (
          <button type="button" className="secondary" onClick={() => set({ outcomes: [...draft.outcomes, ''] })}>
            Add an outcome
          </button>
        ) : null}
        <p className="field-help">
          The opening chances set where the market maker starts: leave them blank for even odds, or give each outcome {LIMITS.opening.min} to{' '}
          {LIMITS.opening.max} % adding up to 100 %.
        </p>
        {shown.outcomes ? <p className="field-error">{shown.outcomes}</p> : null}
        {shown.opening ? <p className="field-error">{shown.opening}</p> : null}
      </fieldset>
      <InputField
        label="End date"
        type="datetime-local"
        value={draft.endDate}
        onChange={(e) => set({ endDate: e.target.value })}
        help="In the future; your local time."
        error={shown.endDate}
      />
      <InputField
        label="Market maker funding (virtual dollars)"
        inputMode="decimal"
        value={draft.liquidity}
        onChange={(e) => set({ liquidity: e.target.value })}
        help={
          <>
            Creating the market takes this from your cash now: it funds the automated market maker that prices the outcomes, and is the most that market maker
            can lose. What is left of its cash comes back to you when the market settles. At least {money(LIMITS.liquidity.min)}
            {available !== undefined ? `; you have ${money(available)} available` : ''}.
          </>
        }
        error={shown.liquidity}
      />
      {create.isError ? <ErrorMessage error={create.error} /> : null}
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : `Create market for ${cost}`}
      </button>
    </form>
  );
}
