// The Markdown renderer itself, loaded when the first reply is drawn (see markdown.ts, which
// decides when): CommonMark + GFM (tables, strikethrough, autolinks, task lists, footnotes) by
// markdown-it, math ($…$, $$…$$, \(…\), \[…\]) and code highlighting by the functions the caller
// hands in (math.ts and highlight.ts, each loaded only for a reply that has math or code).
// Safety, in two layers: markdown-it never passes HTML through (`html: false`, so tags in a reply
// show as text), and what it produces is sanitised by DOMPurify before it becomes DOM. Links keep
// only http(s) and mailto targets and open in a new tab without an opener or referrer. Images are
// shown as links: a reply never makes the browser fetch anything.

import { footnote } from '@mdit/plugin-footnote';
import { tasklist } from '@mdit/plugin-tasklist';
import { tex } from '@mdit/plugin-tex';
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { safeHref } from './links';

export interface RenderOptions {
  /** The text of the copy button on code blocks. */
  copyLabel?: string;
  /** Its tooltip and accessible name. */
  copyTitle?: string;
  /** The label of a code block without a language. */
  plainLabel?: string;
}

/** What renders math and highlights code, when they are loaded; without them math shows as its
 *  source and code unhighlighted. */
export interface Helpers {
  /** TeX as HTML, inline or as a block. */
  tex?: (content: string, displayMode: boolean) => string;
  /** Code as highlighted HTML, or null when its language is unknown. */
  highlight?: (code: string, lang: string) => string | null;
}

// ---- markdown-it

const RENDER = Symbol('maru.render');
interface Env {
  [RENDER]: { opts: Required<RenderOptions>; helpers: Helpers };
}
const DEFAULTS: Required<RenderOptions> = { copyLabel: 'Copy', copyTitle: 'Copy code', plainLabel: 'text' };

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

// Math is found by @mdit/plugin-tex (what @mdit/plugin-katex is built on) and rendered by the
// KaTeX the caller loaded (math.ts); until then its source shows as text.
md.use(tex, {
  delimiters: 'all',
  render: (content: string, displayMode: boolean, env: unknown) => {
    const render = (env as Env)[RENDER]?.helpers.tex;
    if (render) return render(content, displayMode);
    const text = md.utils.escapeHtml(displayMode ? `$$${content}$$` : `$${content}$`);
    return displayMode ? `<p>${text}</p>\n` : text;
  },
});
md.use(tasklist, { disabled: true, label: false });
md.use(footnote);


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
  const o = env[RENDER]?.opts ?? DEFAULTS;
  const lang = info.trim().split(/\s+/)[0] ?? '';
  const esc = md.utils.escapeHtml;
  const highlighted = lang ? env[RENDER]?.helpers.highlight?.(text, lang) ?? null : null;
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
export function renderMarkdownHtml(src: string, opts: RenderOptions = {}, helpers: Helpers = {}): string {
  const env: Env = { [RENDER]: { opts: { ...DEFAULTS, ...opts }, helpers } };
  const raw = md.render(src, env).trimEnd();
  if (!purify) throw new Error('Markdown rendering needs a DOM');
  return purify.sanitize(raw, PURIFY_CONFIG) as string;
}
