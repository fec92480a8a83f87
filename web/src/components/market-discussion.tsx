import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { $api, api } from '../lib/api/client';
import { dateTime, percent } from '../lib/format';
import { signInHref, traderHref } from '../lib/paths';
import { useInView } from '../lib/use-in-view';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';
import './pages.css';
import './market-discussion.css';

const MAX_CHARS = 1000;
const COMMENTS_KEY = ['get', '/api/comments'] as const;

interface Props {
  marketId: string;
  signedIn: boolean;
  /** The market's creator (a community market): may hide comments. */
  canHide?: boolean;
  /** Outcome labels, in order, to name a community forecast's probabilities. */
  outcomes?: string[];
}

/**
 * A market's discussion (list_comments, post_comment, hide_comment): comments newest first, page by page; once the
 * market has closed, its forecasters' rationales beside them. Bodies are rendered as text, never as HTML. It sits
 * below the fold and reads its comments only once scrolled near, so opening a market costs no read for it.
 */
export function MarketDiscussion({ marketId, signedIn, canHide = false, outcomes }: Props) {
  // Each "older comments" press adds the next page's cursor; the first page has none.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [ref, inView] = useInView<HTMLElement>();
  return (
    <section className="discussion" aria-labelledby="discussion-heading" ref={ref}>
      <h2 id="discussion-heading">Discussion</h2>
      {signedIn ? (
        <CommentForm marketId={marketId} onPosted={() => setCursors([undefined])} />
      ) : (
        <p>
          <Link href={signInHref(typeof location === 'undefined' ? undefined : location.pathname)}>Log in or create an account</Link> to join the discussion.
        </p>
      )}
      {!inView
        ? null
        : cursors.map((cursor, i) => (
            <CommentPage
              key={cursor ?? 'first'}
              marketId={marketId}
              cursor={cursor}
              canHide={canHide}
              outcomes={outcomes}
              onMore={i === cursors.length - 1 ? (next) => setCursors((c) => [...c, next]) : undefined}
            />
          ))}
    </section>
  );
}

function CommentForm({ marketId, onPosted }: { marketId: string; onPosted: () => void }) {
  const id = useId();
  const [body, setBody] = useState('');
  const client = useQueryClient();
  const post = useMutation({
    mutationFn: () => api.POST('/api/comments', { body: { marketId, body } }).then((r) => r.data!),
    onSuccess: async () => {
      setBody('');
      onPosted();
      await client.invalidateQueries({ queryKey: COMMENTS_KEY });
    },
  });
  const length = [...body.trim()].length;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (length > 0 && length <= MAX_CHARS) post.mutate();
  };
  return (
    <form onSubmit={submit} className="comment-form">
      <label htmlFor={`${id}-body`}>Your comment</label>
      <textarea id={`${id}-body`} value={body} onChange={(e) => setBody(e.target.value)} maxLength={MAX_CHARS} rows={3} />
      <p className="muted" aria-live="polite">
        {length}/{MAX_CHARS} characters · plain text, visible to everyone
      </p>
      {post.isError ? <ErrorMessage error={post.error} /> : null}
      <button type="submit" disabled={length === 0 || post.isPending}>
        {post.isPending ? 'Posting…' : 'Post comment'}
      </button>
    </form>
  );
}

function CommentPage({
  marketId,
  cursor,
  canHide,
  outcomes,
  onMore,
}: {
  marketId: string;
  cursor: string | undefined;
  canHide: boolean;
  outcomes?: string[];
  onMore?: (next: string) => void;
}) {
  const page = $api.useQuery('get', '/api/comments', { params: { query: { marketId, limit: 30, ...(cursor ? { cursor } : {}) } } }, { staleTime: 30_000 });
  if (page.isPending) return <Loading what="the discussion" />;
  if (page.isError) return <ErrorMessage error={page.error} />;
  const { comments, rationales, nextCursor } = page.data;
  return (
    <>
      {rationales.length > 0 ? (
        <section aria-labelledby={`rationales-${marketId}`} className="rationales">
          <h3 id={`rationales-${marketId}`}>Forecasters’ reasoning</h3>
          <p className="muted">Shown once the market closed: forecasts are private while it trades.</p>
          <ul>
            {rationales.map((r) => (
              <li key={r.userId} className="comment">
                <p className="comment-meta">
                  <Link href={traderHref(r.userId)}>{r.displayName}</Link>
                  {r.isAgent ? <span className="tag">agent</span> : null} forecast <strong>{forecastText(r.probabilities, outcomes)}</strong> ·{' '}
                  {dateTime(r.createdAt)}
                </p>
                <p className="pre-line">{r.rationale}</p>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {cursor === undefined && comments.length === 0 ? <p>No comments yet.</p> : null}
      <ul className="comments" aria-label={cursor === undefined ? 'Comments' : 'Older comments'}>
        {comments.map((c) => (
          <li key={c.id} className="comment">
            <p className="comment-meta">
              <Link href={traderHref(c.userId)}>{c.displayName}</Link>
              {c.isAgent ? <span className="tag">agent</span> : null} · <time dateTime={c.createdAt}>{dateTime(c.createdAt)}</time>
            </p>
            <p className="pre-line">{c.body}</p>
            {canHide ? <HideButton commentId={c.id} /> : null}
          </li>
        ))}
      </ul>
      {nextCursor && onMore ? (
        <button type="button" className="secondary" onClick={() => onMore(nextCursor)}>
          Older comments
        </button>
      ) : null}
    </>
  );
}

function HideButton({ commentId }: { commentId: string }) {
  const client = useQueryClient();
  const hide = useMutation({
    mutationFn: () => api.POST('/api/comments/{commentId}/hide', { params: { path: { commentId } }, body: { hidden: true } }).then((r) => r.data!),
    onSuccess: () => client.invalidateQueries({ queryKey: COMMENTS_KEY }),
  });
  return (
    <>
      <button type="button" className="secondary" onClick={() => hide.mutate()} disabled={hide.isPending}>
        Hide
      </button>
      {hide.isError ? <ErrorMessage error={hide.error} /> : null}
    </>
  );
}

/** A mirrored market's forecast is P(YES); a community market's names each outcome. */
function forecastText(ps: number[], outcomes?: string[]): string {
  if (ps.length === 1) return `${percent(ps[0])} YES`;
  return ps.map((p, i) => `${outcomes?.[i] ?? `#${i + 1}`} ${percent(p)}`).join(', ');
}
