/**
 * A tiny document model rendered to markdown or HTML, so every content page has one source and the two
 * renderings cannot drift. Only what the generated pages need: headings, paragraphs, quotes, lists, code.
 */
export type Inline = string | { code: string } | { link: string; href: string } | { strong: string };

export type Block =
  { heading: 1 | 2 | 3; text: string; id?: string } | { paragraph: Inline[] } | { quote: Inline[] } | { list: Inline[][] } | { code: string; lang?: string };

/**
 * A read the service made for a page's first view: the API request as the web app sends it, its JSON answer, and when it
 * was made (ms since the epoch). The web app reads the same shape from the page (web/src/app/first-reads.ts).
 */
export interface FirstRead {
  href: string;
  body: unknown;
  at: number;
}

export interface Page {
  title: string;
  blocks: Block[];
  /**
   * Same-origin API reads the browser app makes first on this page, exactly as it sends them: the app's shell starts
   * them with the HTML (`<link rel="preload" as="fetch">`), so they do not wait for the app's JavaScript.
   */
  preload?: string[];
  /**
   * The web app's first view of this page, when the service renders it (src/http/pages/web-app.ts): the page's address
   * and the reads it is drawn from, which the page then carries for the app (web/src/app/first-reads.ts).
   */
  firstView?: { url: string; reads: FirstRead[] };
  /** The app's modules this page draws with beyond its entry (their source paths, e.g. `src/components/price-chart.tsx`): fetched with the HTML. */
  modules?: string[];
}

function inlineMarkdown(parts: Inline[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return p;
      if ('code' in p) return p.code.includes('`') ? `\`\` ${p.code} \`\`` : `\`${p.code}\``;
      if ('strong' in p) return `**${p.strong}**`;
      return `[${p.link}](${p.href})`;
    })
    .join('');
}

export function toMarkdown(page: Page): string {
  const out: string[] = [];
  for (const b of page.blocks) {
    if ('heading' in b) out.push(`${'#'.repeat(b.heading)} ${b.text}`);
    else if ('paragraph' in b) out.push(inlineMarkdown(b.paragraph));
    else if ('quote' in b) out.push(`> ${inlineMarkdown(b.quote)}`);
    else if ('list' in b) out.push(b.list.map((item) => `- ${inlineMarkdown(item)}`).join('\n'));
    else out.push(`\`\`\`${b.lang ?? ''}\n${b.code}\n\`\`\``);
  }
  return `${out.join('\n\n')}\n`;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function inlineHtml(parts: Inline[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return escapeHtml(p);
      if ('code' in p) return `<code>${escapeHtml(p.code)}</code>`;
      if ('strong' in p) return `<strong>${escapeHtml(p.strong)}</strong>`;
      return `<a href="${escapeHtml(p.href)}">${escapeHtml(p.link)}</a>`;
    })
    .join('');
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}' +
  'pre{background:#f4f4f4;padding:.75rem;overflow:auto;font-size:.85rem}code{font-size:.9em}blockquote{margin:0;padding-left:1rem;border-left:3px solid #ccc}';

/** A page as HTML: plain (toHtml) or inside the web app's shell (src/http/pages/web-app.ts). */
/** Renders a page's HTML; `firstViews` when it renders the web app's first view of a page that asks for one (Page.firstView). */
export type HtmlRenderer = ((page: Page, markdownHref: string) => string) & { firstViews?: boolean };

/** The page's content alone, as the HTML inside <main>. */
export function toHtmlBody(page: Page): string {
  return page.blocks
    .map((b) => {
      if ('heading' in b) return `<h${b.heading}${b.id ? ` id="${escapeHtml(b.id)}"` : ''}>${escapeHtml(b.text)}</h${b.heading}>`;
      if ('paragraph' in b) return `<p>${inlineHtml(b.paragraph)}</p>`;
      if ('quote' in b) return `<blockquote><p>${inlineHtml(b.quote)}</p></blockquote>`;
      if ('list' in b) return `<ul>\n${b.list.map((item) => `<li>${inlineHtml(item)}</li>`).join('\n')}\n</ul>`;
      return `<pre><code${b.lang ? ` class="language-${escapeHtml(b.lang)}"` : ''}>${escapeHtml(b.code)}</code></pre>`;
    })
    .join('\n');
}

export const toHtml: HtmlRenderer = (page, markdownHref) =>
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
  `<title>${escapeHtml(page.title)}</title>\n` +
  `<link rel="alternate" type="text/markdown" href="${escapeHtml(markdownHref)}">\n` +
  `<style>${STYLE}</style>\n</head>\n<body>\n<main>\n${toHtmlBody(page)}\n</main>\n</body>\n</html>\n`;
