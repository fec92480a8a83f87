import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root, where README.md and docs/ are. */
export const ROOT = join(__dirname, '..', '..');

/** A fenced shell example of a page, with the marker comment above it that says whether the examples test runs it. */
export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** What follows `example:` in the marker (`run`, or `not run (why)`); null when the block has no marker. */
  marker: string | null;
  code: string;
}

/** README.md and every page of docs/, relative to the root. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((n) => `docs/${n}`)];
}

/**
 * Every ```sh / ```bash / ```shell block of a page. Its marker is the nearest non-blank line above the fence when that
 * line is `<!-- example: … -->`, so a new example without one is noticed by the test rather than silently left out.
 */
export function shellBlocks(file: string): ShellBlock[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith('```')) continue;
    if (inFence) {
      inFence = false;
      continue;
    }
    inFence = true;
    if (!/^```(sh|bash|shell)\s*$/.test(line)) continue;
    const end = lines.indexOf('```', i + 1);
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const marker = /^<!-- example: (.+?) -->$/.exec(lines[above] ?? '')?.[1] ?? null;
    blocks.push({ file, line: i + 1, marker, code: lines.slice(i + 1, end).join('\n') });
    i = end;
    inFence = false;
  }
  return blocks;
}

/** A curl call of a script and what its `# →` comment says it answers: the status, and the JSON text shown. */
export interface ExpectedCall {
  /** The line of the script the call starts on (for messages). */
  text: string;
  status: number | null;
  shown: string | null;
}

/**
 * The curl calls of a script in the order they run (one per line that calls curl; the scripts have no loops), each with
 * the `# → [status] json` comment that follows it before the next call, continuation comment lines (`#    …`) joined.
 */
export function expectedCalls(script: string): ExpectedCall[] {
  const calls: ExpectedCall[] = [];
  let arrow: string[] | null = null;
  const close = () => {
    if (arrow && calls.length) {
      const text = arrow.join('');
      const m = /^(\d{3})?\s*(.*)$/.exec(text.trim())!;
      calls[calls.length - 1]!.status = m[1] ? Number(m[1]) : null;
      calls[calls.length - 1]!.shown = m[2] || null;
    }
    arrow = null;
  };
  for (const line of script.split('\n')) {
    const trimmed = line.trim();
    const comment = /^# → (.*)$/.exec(trimmed);
    if (comment) {
      close();
      arrow = [comment[1]!];
      continue;
    }
    if (arrow && /^#\s{2,}\S/.test(trimmed)) {
      arrow.push(trimmed.replace(/^#\s+/, ''));
      continue;
    }
    close();
    if (/(^|\$\(|\|\s*)curl\s/.test(trimmed)) calls.push({ text: trimmed, status: null, shown: null });
  }
  close();
  return calls;
}

/**
 * What a `# →` comment commits to: every key it names, and the scalar values it writes out in full (a value with `…` in it,
 * or a number cut short, is the reader's to see, not a promise).
 */
export function shownFacts(shown: string): { keys: string[]; values: Array<[string, unknown]> } {
  const keys = [...shown.matchAll(/"(\w+)":/g)].map((m) => m[1]!);
  const values: Array<[string, unknown]> = [];
  for (const m of shown.matchAll(/"(\w+)":(true|false|null|-?\d+(?:\.\d+)?(?![\d.…])|"[^"…]*")(?=[,}\]])/g)) values.push([m[1]!, JSON.parse(m[2]!)]);
  return { keys: [...new Set(keys)], values };
}

/** Every (key, value) pair anywhere in a JSON value. */
export function pairs(value: unknown, out: Array<[string, unknown]> = []): Array<[string, unknown]> {
  if (Array.isArray(value)) for (const v of value) pairs(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push([k, v]);
      pairs(v, out);
    }
  return out;
}
