// Markdown for model replies: CommonMark + GFM (tables, strikethrough, autolinks, task lists,
// footnotes) by markdown-it, code highlighted by highlight.js, math ($…$, $$…$$, \(…\), \[…\]) by
// KaTeX.
// Safety, in two layers: markdown-it never passes HTML through (`html: false`, so tags in a reply
// show as text), and what it produces is sanitised by DOMPurify before it becomes DOM. Links keep
// only http(s) and mailto targets and open in a new tab without an opener or referrer. Images are
// shown as links: a reply never makes the browser fetch anything.
//
// While a reply streams, `MarkdownStream` renders each completed block once and re-renders only
// the block still being written (see `splitPoint`). Footnotes are the exception: their
// definitions come at the end of a reply, after the blocks that cite them were rendered, so once a
// definition has arrived the reply is rendered whole. A code fence or display math block still
// open at the end is shown as plain, muted text until it closes (see `splitUnfinished`).

import { footnote } from '@mdit/plugin-footnote';
import { katex } from '@mdit/plugin-katex';
import { tasklist } from '@mdit/plugin-tasklist';
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { highlightCode } from './highlight';
import 'katex/dist/katex.min.css';

export interface RenderOptions {
  /** The text of the copy button on code blocks. */
  copyLabel?: string;
  /** Its tooltip and accessible name. */
  copyTitle?: string;
  /** The label of a code block without a language. */
  plainLabel?: string;
}

/** Only web and mail links; `javascript:`, `data:` and the like are refused. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:\/\/|mailto:)/i.test(h) && !/[\u0000-\u001f\s]/.test(h)) return h;
  return null;
}

// ---- markdown-it

const md = new MarkdownIt({
  html: false,
  linkify: true,
  // Models write one line per thought: a single newline is a line break, as it was shown before.
  breaks: true,
  typographer: false,
});
// Bare "example.com" is not a link; "https://example.com" and "<https://…>" are.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
// Every target is accepted by the parser so that an unsafe link still parses as a link (and then
// shows as its label, see `maru_unsafe_links` below) instead of as raw brackets.
md.validateLink = () => true;

// @mdit/plugin-katex is maintained with markdown-it 14 and brings KaTeX 0.16 (its own dependency,
// which package.json pins to the same line so the CSS and fonts match the code).
md.use(katex, {
  delimiters: 'all',
  throwOnError: false,
  // \href, \url, \includegraphics, \htmlClass and the like stay off (`trust` is false).
  trust: false,
  strict: 'ignore',
  output: 'htmlAndMathml',
  logger: () => 'ignore',
});
md.use(tasklist, { disabled: true, label: false });
md.use(footnote);

const RENDER = Symbol('maru.render');
interface Env {
  [RENDER]: Required<RenderOptions>;
}
const DEFAULTS: Required<RenderOptions> = { copyLabel: 'Copy', copyTitle: 'Copy code', plainLabel: 'text' };

/** A link whose target is not http(s)/mailto loses its `<a>`: its label stays as text. */
md.core.ruler.push('maru_unsafe_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    const dropped: boolean[] = [];
    for (const tok of block.children) {
      if (tok.type === 'link_open') {
        const safe = safeHref(tok.attrGet('href') ?? '');
        dropped.push(!safe);
        if (!safe) continue;
        tok.attrSet('href', safe);
        tok.attrSet('target', '_blank');
        tok.attrSet('rel', 'noopener noreferrer nofollow');
      } else if (tok.type === 'link_close') {
        if (dropped.pop()) continue;
      }
      out.push(tok);
    }
    block.children = out;
  }
});

const rules = md.renderer.rules;

// The page has its own h1: a reply's `#` is an h2, and so on down.
rules.heading_open = (tokens, idx) => {
  const level = Number(tokens[idx].tag.slice(1));
  return `<h${Math.min(level + 1, 6)} class="md-h" data-level="${level}">`;
};
rules.heading_close = (tokens, idx) => `</h${Math.min(Number(tokens[idx].tag.slice(1)) + 1, 6)}>\n`;

// Wide tables scroll on their own.
rules.table_open = () => '<div class="table-wrap"><table>\n';
rules.table_close = () => '</table></div>\n';

// An image is a link to it (when its address is a web one), never an `<img>`.
rules.image = (tokens, idx, options, env, self) => {
  const tok = tokens[idx];
  const alt = self.renderInlineAsText(tok.children ?? [], options, env);
  const src = safeHref(tok.attrGet('src') ?? '');
  const label = md.utils.escapeHtml(alt || src || '');
  if (!src) return label;
  return `<a href="${md.utils.escapeHtml(src)}" target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
};

// Footnotes: a superscript number and the notes listed at the end. Without ids and in-page links
// (ids would repeat across replies; see PURIFY_CONFIG), so there is no jump to the note and back.
rules.footnote_ref = (tokens, idx, options, env, self) =>
  `<sup class="fn-ref">${self.rules.footnote_caption!(tokens, idx, options, env, self)}</sup>`;
rules.footnote_block_open = () => '<section class="footnotes"><ol class="footnotes-list">\n';
rules.footnote_block_close = () => '</ol></section>\n';
rules.footnote_open = () => '<li class="footnote-item">';
rules.footnote_close = () => '</li>\n';
rules.footnote_anchor = () => '';

// Fenced and indented code: a header with the language and a copy button (wired by the chat),
// then the highlighted code.
const codeBlock = (text: string, info: string, env: Env): string => {
  const o = env[RENDER] ?? DEFAULTS;
  const lang = info.trim().split(/\s+/)[0] ?? '';
  const esc = md.utils.escapeHtml;
  const highlighted = highlightCode(text, lang);
  const body = highlighted ?? esc(text);
  const langAttr = lang ? ` data-lang="${esc(lang)}"` : '';
  const cls = highlighted != null ? ` class="hljs language-${esc(lang)}"` : '';
  return (
    `<div class="code-block"><div class="code-head"><span class="code-lang">${esc(lang || o.plainLabel)}</span>` +
    `<button type="button" class="copy-code" title="${esc(o.copyTitle)}" aria-label="${esc(o.copyTitle)}">${esc(o.copyLabel)}</button></div>` +
    `<pre><code${cls}${langAttr}>${body}</code></pre></div>\n`
  );
};
rules.fence = (tokens, idx, _options, env) => {
  const tok = tokens[idx];
  // A fence still open while a reply streams has no closing line yet: its trailing newline is
  // the line being written, not a blank line of code.
  return codeBlock(tok.content.replace(/\n$/, ''), md.utils.unescapeAll(tok.info), env as Env);
};
rules.code_block = (tokens, idx, _options, env) => codeBlock(tokens[idx].content.replace(/\n$/, ''), '', env as Env);

// ---- sanitising

const purify = typeof window !== 'undefined' ? DOMPurify(window) : null;
if (purify) {
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      const href = safeHref(node.getAttribute('href') ?? '');
      if (href) {
        node.setAttribute('href', href);
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      } else {
        node.removeAttribute('href');
        node.removeAttribute('target');
      }
    }
    // KaTeX sizes and places glyphs with inline styles; nothing in a style may fetch.
    const style = node.getAttribute?.('style');
    if (style && /url\s*\(|@import|expression\s*\(/i.test(style)) node.removeAttribute('style');
  });
}

const PURIFY_CONFIG = {
  // KaTeX writes HTML (spans), MathML (for screen readers) and, for a few glyphs (roots, long
  // arrows), SVG paths.
  USE_PROFILES: { html: true, mathMl: true, svg: true },
  ADD_ATTR: ['target'],
  // DOMPurify leaves out MathML's <semantics> and <annotation> by default: the wrapper is harmless
  // and kept; the annotation (the TeX source again, for tools that convert back) goes with its text.
  ADD_TAGS: ['semantics'],
  ADD_FORBID_CONTENTS: ['annotation'],
  FORBID_TAGS: ['img', 'image', 'style', 'form', 'iframe', 'object', 'embed', 'video', 'audio', 'source', 'picture', 'use', 'foreignObject'],
  // Ids would repeat across replies (task list checkboxes number theirs from 0 in each).
  FORBID_ATTR: ['id', 'srcset', 'xlink:href', 'action', 'formaction'],
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

/** The reply's Markdown as sanitised HTML. */
export function renderMarkdownHtml(src: string, opts: RenderOptions = {}): string {
  const env: Env = { [RENDER]: { ...DEFAULTS, ...opts } };
  const raw = md.render(src, env).trimEnd();
  if (!purify) throw new Error('Markdown rendering needs a DOM');
  return purify.sanitize(raw, PURIFY_CONFIG) as string;
}

function toFragment(html: string, doc: Document): DocumentFragment {
  // `html` is DOMPurify's output; a template parses it without running or fetching anything.
  const tpl = doc.createElement('template');
  tpl.innerHTML = html;
  return tpl.content;
}

// Finished replies are drawn again when the chat redraws: the HTML of the last ones is kept, up
// to a few million characters in all.
const CACHE_CHARS = 4_000_000;
const cache = new Map<string, string>();
let cachedChars = 0;

function cachedHtml(src: string, opts: RenderOptions): string {
  const key = `${opts.copyLabel ?? ''}\u0000${opts.copyTitle ?? ''}\u0000${opts.plainLabel ?? ''}\u0000${src}`;
  let html = cache.get(key);
  if (html === undefined) {
    html = renderMarkdownHtml(src, opts);
  } else {
    cache.delete(key);
    cachedChars -= key.length + html.length;
  }
  cache.set(key, html);
  cachedChars += key.length + html.length;
  for (const [k, v] of cache) {
    if (cachedChars <= CACHE_CHARS || cache.size === 1) break;
    cache.delete(k);
    cachedChars -= k.length + v.length;
  }
  return html;
}

/** Builds the DOM for a reply; code blocks carry a `.copy-code` button for the caller to wire. */
export function renderMarkdown(src: string, opts: RenderOptions = {}, doc: Document = document): DocumentFragment {
  return toFragment(cachedHtml(src, opts), doc);
}

// ---- streaming

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FOOTNOTE_DEFINITION = /^ {0,3}\[\^[^\]\s]+\]:/m;
const LIST_OR_INDENTED = /^(?:[ \t]|[-*+][ \t]|[-*+]$|\d{1,9}[.)](?:[ \t]|$))/;

/**
 * Where `src` can be cut so that the part before renders exactly as it would inside the whole:
 * just after the last blank line that is outside a code fence or display math, and followed by a
 * line that starts a new top-level block (not indented, which could continue a list item or be
 * code, and not a list marker, which could continue a loose list). 0 when there is none.
 * Scans from `from`, which must itself be such a point (or 0).
 */
export function splitPoint(src: string, from = 0): number {
  let best = from;
  let fence: string | null = null; // the fence's marker run while inside one
  let math = false;
  let pos = from;
  let afterBlank = false;
  while (pos < src.length) {
    let end = src.indexOf('\n', pos);
    const last = end === -1;
    if (last) end = src.length;
    const line = src.slice(pos, end);
    if (fence) {
      const m = FENCE_OPEN.exec(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && m[2].trim() === '') fence = null;
    } else if (math) {
      if (line.trimEnd().endsWith('$$') || line.trimEnd().endsWith('\\]')) math = false;
    } else if (line.trim() === '') {
      afterBlank = true;
    } else {
      // A line that begins a block after a blank line: the text before it is complete.
      if (afterBlank && !LIST_OR_INDENTED.test(line) && !last) best = pos;
      afterBlank = false;
      const m = FENCE_OPEN.exec(line);
      if (m && !(m[1][0] === '`' && m[2].includes('`'))) fence = m[1];
      else {
        const t = line.trim();
        if ((t.startsWith('$$') && !(t.length > 3 && t.endsWith('$$'))) || (t.startsWith('\\[') && !t.endsWith('\\]'))) math = true;
      }
    }
    if (last) break;
    pos = end + 1;
  }
  return best;
}

// A line's container marks (blockquote `>`, a list item's marker) and indentation, before a fence
// or display math that sits inside one.
const CONTAINER_PREFIX = /^(?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?/;

/**
 * While a reply streams: the text before a code fence or display math block (`$$ …`, `\[ …`)
 * that is still open at the end of `text` (`done`), and that block from its opening line on
 * (`pending`), which is shown as plain text until it closes. Half a block would render
 * half-formed (math as a red KaTeX error). A `$$` inside a fence, or a fence inside math, is
 * their content; inline math (`$x$`, `$$x$$` within a line) is never held back. With nothing
 * open, all of `text` is `done`.
 */
export function splitUnfinished(text: string): { done: string; pending: string; kind: 'code' | 'math' | null } {
  let fence: string | null = null; // the fence's marker run while inside one
  let math: '$$' | '\\]' | null = null; // the closing delimiter while inside display math
  let start = 0; // where the open block's line begins
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const raw = text.slice(pos, end);
    const line = raw.slice(CONTAINER_PREFIX.exec(raw)![0].length);
    if (fence) {
      const m = FENCE_OPEN.exec(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && m[2].trim() === '') fence = null;
    } else if (math) {
      if (line.trimEnd().endsWith(math)) math = null;
    } else {
      const m = FENCE_OPEN.exec(line);
      const t = line.trimEnd();
      if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
        fence = m[1];
        start = pos;
      } else if (t.startsWith('$$') && !(t.length >= 4 && t.endsWith('$$'))) {
        math = '$$';
        start = pos;
      } else if (t.startsWith('\\[') && !(t.length >= 4 && t.endsWith('\\]'))) {
        math = '\\]';
        start = pos;
      }
    }
    pos = end + 1;
  }
  if (!fence && !math) return { done: text, pending: '', kind: null };
  return { done: text.slice(0, start), pending: text.slice(start), kind: fence ? 'code' : 'math' };
}

/** The held-back tail as escaped, muted text: preformatted for code, a paragraph for math. */
function pendingNode(pending: string, kind: 'code' | 'math', doc: Document): ChildNode {
  const el = doc.createElement(kind === 'code' ? 'pre' : 'p');
  el.className = kind === 'code' ? 'pending pending-code' : 'pending pending-text';
  // textContent: the text is never parsed as HTML.
  el.textContent = pending.replace(/\n$/, '');
  return el;
}

/**
 * Renders a reply that grows while it streams. The completed blocks are rendered once and their
 * nodes kept in the element given; each `render` parses only the text after them (the block
 * still being written) and replaces only its nodes. Text that does not continue what was
 * rendered (a new reply) starts over.
 */
export class MarkdownStream {
  private doneSrc = '';
  private doneNodes: Node[] = [];
  private tailNodes: Node[] = [];
  private into: Element | null = null;
  /** When the reply was last rendered whole (footnotes), and how long that took, in ms. */
  private wholeAt = 0;
  private wholeCost = 0;
  /** A frame skipped to keep to that share: rendered once the time has come, unless a newer one was. */
  private skipped: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly opts: RenderOptions = {},
    private readonly doc: Document = document,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Fills `into` with the rendering of `src`; pass the same element every frame. */
  render(text: string, into: Element): void {
    if (this.skipped) clearTimeout(this.skipped);
    this.skipped = null;
    // A code fence or display math still open at the end is held back as plain text.
    const { done: src, pending, kind } = splitUnfinished(text);
    const pendingNodes = pending && kind ? [pendingNode(pending, kind, this.doc)] : [];
    if (FOOTNOTE_DEFINITION.test(src)) {
      // The blocks citing a note were rendered before it was defined: all of it from here (notes
      // come last, so these are the reply's last frames), but a long reply, whose whole rendering
      // takes a while, at most a tenth of the time. A frame skipped is rendered when its time
      // comes, so the last one always shows.
      const now = this.now();
      const wait = this.wholeAt + this.wholeCost * 10 - now;
      if (into === this.into && this.wholeCost > 16 && wait > 0) {
        this.skipped = setTimeout(() => this.render(text, into), wait);
        return;
      }
      into.replaceChildren(...toFragment(renderMarkdownHtml(src, this.opts), this.doc).childNodes, ...pendingNodes);
      this.wholeAt = this.now();
      this.wholeCost = this.wholeAt - now;
      this.doneSrc = '';
      this.doneNodes = [];
      this.tailNodes = [];
      this.into = into;
      return;
    }
    if (!src.startsWith(this.doneSrc)) {
      this.doneSrc = '';
      this.doneNodes = [];
      this.into = null;
    }
    // The text before an open block is complete as soon as the block's first line is (a cut
    // there keeps it between frames); a cut is never past what is shown.
    let cut = splitPoint(text, this.doneSrc.length);
    if (cut > src.length) cut = splitPoint(src, this.doneSrc.length);
    const done: Node[] = [];
    if (cut > this.doneSrc.length) {
      done.push(...toFragment(renderMarkdownHtml(src.slice(this.doneSrc.length, cut), this.opts), this.doc).childNodes);
      this.doneSrc = src.slice(0, cut);
    }
    const tail = src.slice(this.doneSrc.length);
    const tailNodes = tail ? [...toFragment(renderMarkdownHtml(tail, this.opts), this.doc).childNodes] : [];
    tailNodes.push(...pendingNodes);
    const kept = this.doneNodes.length ? this.doneNodes[this.doneNodes.length - 1] : null;
    const intact = into === this.into && (!kept || kept.parentNode === into) && this.tailNodes.every((n) => n.parentNode === into) &&
      into.lastChild === (this.tailNodes.length ? this.tailNodes[this.tailNodes.length - 1] : kept);
    if (!intact) {
      // Another element, or one changed meanwhile: filled from the start.
      this.doneNodes.push(...done);
      into.replaceChildren(...this.doneNodes, ...tailNodes);
    } else {
      for (const n of this.tailNodes) n.parentNode?.removeChild(n);
      this.doneNodes.push(...done);
      into.append(...done, ...tailNodes);
    }
    this.into = into;
    this.tailNodes = tailNodes;
  }

  /** The length of the text rendered once and kept. */
  get cachedLength(): number {
    return this.doneSrc.length;
  }
}
