// Markdown for model replies, and what each reply needs loaded to be drawn. The renderer
// (markdownRender.ts: markdown-it, its plugins and DOMPurify), KaTeX (math.ts, with its stylesheet
// and fonts) and highlight.js (highlight.ts) are chunks of their own, loaded when a reply needs
// them: the renderer for any reply (and early, when the window is idle after start, see
// `preloadMarkdown`), KaTeX for one with math, highlight.js for one with a code fence. A view
// asks `markdownReady` for the replies it is about to draw and, when they are not, waits for
// `loadMarkdownFor` and draws them all once it resolves: a chat full of math shows in one pass,
// never as raw text first.
//
// While a reply streams, `MarkdownStream` renders each completed block once and re-renders only
// the block still being written (see `splitPoint`). Footnotes are the exception: their
// definitions come at the end of a reply, after the blocks that cite them were rendered, so once a
// definition has arrived the reply is rendered whole. A code fence or display math block still
// open at the end is shown as plain, muted text until it closes (see `splitUnfinished`).

import type { Helpers, RenderOptions } from './markdownRender';

export type { RenderOptions } from './markdownRender';
export { safeHref } from './links';

// ---- what a reply needs, and loading it

/** The chunks a reply may need: the renderer, KaTeX, highlight.js. */
export type Part = 'markdown' | 'math' | 'code';

type Renderer = typeof import('./markdownRender');
let renderer: Renderer | null = null;
const helpers: Helpers = {};
/** Each part's load, once asked for; a part whose load failed counts as settled (its replies are
 *  drawn without it: math as its source, code unhighlighted, or the text as it was written). */
const loads = new Map<Part, Promise<void>>();
const settled = new Set<Part>();
/** Bumped whenever a part arrives: what was drawn without it is drawn again. */
let generation = 0;

const LOADERS: Record<Part, () => Promise<void>> = {
  markdown: async () => {
    renderer = await import('./markdownRender');
  },
  math: async () => {
    helpers.tex = (await import('./math')).renderTex;
  },
  code: async () => {
    helpers.highlight = (await import('./highlight')).highlightCode;
  },
};

/**
 * What drawing `src` needs. Math needs a `$`, `\(` or `\[` and highlighting a fence (``` or
 * ~~~), so a text without them needs the renderer only; one with them may need less than this
 * says (`$5`), never more.
 */
export function partsFor(src: string): Part[] {
  const parts: Part[] = ['markdown'];
  if (/\$|\\[([]/.test(src)) parts.push('math');
  if (/```|~~~/.test(src)) parts.push('code');
  return parts;
}

function load(part: Part): Promise<void> {
  let p = loads.get(part);
  if (!p) {
    p = LOADERS[part]().catch((e: unknown) => {
      console.error(`Maru: the ${part} renderer did not load`, e);
    }).finally(() => {
      settled.add(part);
      generation++;
    });
    loads.set(part, p);
  }
  return p;
}

function needed(texts: Iterable<string>): Set<Part> {
  const parts = new Set<Part>();
  if (settled.size === 3) return parts;
  for (const text of texts) for (const part of partsFor(text)) if (!settled.has(part)) parts.add(part);
  return parts;
}

/** Whether every one of `texts` can be drawn now, with all it needs. */
export function markdownReady(texts: Iterable<string>): boolean {
  return needed(texts).size === 0;
}

/** Loads what `texts` need; resolves once all of it is there (or failed to load: never rejects). */
export async function loadMarkdownFor(texts: Iterable<string>): Promise<void> {
  await Promise.all([...needed(texts)].map(load));
}

/** Starts loading the renderer (not KaTeX or highlight.js), so that the first reply does not wait for it. */
export function preloadMarkdown(): Promise<void> {
  return load('markdown');
}

/** The reply's Markdown as sanitised HTML (with what it needs loaded: see `loadMarkdownFor`). */
export function renderMarkdownHtml(src: string, opts: RenderOptions = {}): string {
  if (!renderer) throw new Error('the Markdown renderer is not loaded');
  return renderer.renderMarkdownHtml(src, opts, helpers);
}

/** A reply as its plain text, while (or if) the renderer cannot be had. */
function plainNode(src: string, doc: Document): HTMLElement {
  const p = doc.createElement('p');
  p.className = 'pending pending-text';
  p.textContent = src;
  return p;
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
    // Drawn without a part it needs (still loading, or failed): not kept.
    if (!markdownReady([src])) return html;
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

/** Builds the DOM for a reply; code blocks carry a `.copy-code` button for the caller to wire.
 *  Before the renderer is loaded, the reply's text as written. */
export function renderMarkdown(src: string, opts: RenderOptions = {}, doc: Document = document): DocumentFragment {
  if (!renderer) {
    const frag = doc.createDocumentFragment();
    frag.append(plainNode(src, doc));
    return frag;
  }
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
  /** The parts loaded when the kept blocks were rendered (see `generation`). */
  private generation = -1;

  constructor(
    private readonly opts: RenderOptions = {},
    private readonly doc: Document = document,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Fills `into` with the rendering of `src`; pass the same element every frame. */
  render(text: string, into: Element): void {
    if (this.skipped) clearTimeout(this.skipped);
    this.skipped = null;
    if (!renderer) {
      into.replaceChildren(plainNode(text, this.doc));
      this.into = null;
      return;
    }
    if (this.generation !== generation) {
      // KaTeX or highlight.js arrived since: the blocks kept may have been drawn without them.
      this.doneSrc = '';
      this.doneNodes = [];
      this.into = null;
      this.generation = generation;
    }
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
