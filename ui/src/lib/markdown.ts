// Markdown for model replies, rendered safely: the text is parsed into a small tree and built
// into DOM nodes with text nodes only, so HTML in a reply shows as text and never runs. Covers
// what models write: headings, paragraphs, emphasis, inline code, fenced code (an unclosed fence
// while streaming is still a code block), lists, quotes, tables, rules and links (http, https
// and mailto only). Images are shown as links: a reply never makes the browser fetch anything.

export type Inline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'em' | 'strong' | 'del'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] }
  | { t: 'br' };

export type Align = 'left' | 'center' | 'right' | null;

export type Block =
  | { t: 'p'; c: Inline[] }
  | { t: 'h'; level: number; c: Inline[] }
  | { t: 'code'; lang: string; text: string; open: boolean }
  | { t: 'quote'; c: Block[] }
  | { t: 'list'; ordered: boolean; start: number; tight: boolean; items: Block[][] }
  | { t: 'hr' }
  | { t: 'table'; align: Align[]; head: Inline[][]; rows: Inline[][][] };

// ---- blocks

const FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
const TABLE_RULE = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

export function parse(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n').map(expandTabs);
  return blocks(lines);
}

function expandTabs(line: string): string {
  const m = /^[ \t]+/.exec(line);
  if (!m || !m[0].includes('\t')) return line;
  let col = 0;
  for (const ch of m[0]) col = ch === '\t' ? col + 4 - (col % 4) : col + 1;
  return ' '.repeat(col) + line.slice(m[0].length);
}

const blank = (s: string) => s.trim() === '';
const indentOf = (s: string) => s.length - s.trimStart().length;

function isTableStart(lines: string[], i: number): boolean {
  return i + 1 < lines.length && lines[i].includes('|') && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes('-') &&
    splitRow(lines[i]).length === splitRow(lines[i + 1]).length;
}

/** A line that ends a paragraph because it starts another block. */
function startsBlock(lines: string[], i: number): boolean {
  const line = lines[i];
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    (LIST_ITEM.test(line) && !blank(LIST_ITEM.exec(line)![4] ?? '') && indentOf(line) < 4) || isTableStart(lines, i);
}

function blocks(lines: string[]): Block[] {
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i++;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = FENCE.exec(line))) {
      const indent = m[1].length;
      const fence = m[2];
      const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
      const body: string[] = [];
      i++;
      let open = true;
      while (i < lines.length) {
        if (close.test(lines[i])) {
          open = false;
          i++;
          break;
        }
        body.push(lines[i].slice(Math.min(indent, indentOf(lines[i]))));
        i++;
      }
      // While a reply streams, the fence is not closed yet: the line being written ends it.
      while (open && body.length > 0 && blank(body[body.length - 1])) body.pop();
      out.push({ t: 'code', lang: m[3] ?? '', text: body.join('\n'), open });
      continue;
    }
    if ((m = HEADING.exec(line))) {
      out.push({ t: 'h', level: m[1].length, c: inlines(m[2] ?? '') });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && !blank(lines[i])) {
        if (QUOTE.test(lines[i])) inner.push(lines[i].replace(QUOTE, ''));
        else if (!startsBlock(lines, i)) inner.push(lines[i]);
        else break;
        i++;
      }
      out.push({ t: 'quote', c: blocks(inner) });
      continue;
    }
    if ((m = LIST_ITEM.exec(line)) && indentOf(line) < 4) {
      i = list(lines, i, out);
      continue;
    }
    if (isTableStart(lines, i)) {
      i = table(lines, i, out);
      continue;
    }
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && !blank(lines[i]) && !startsBlock(lines, i)) {
      para.push(lines[i].trim());
      i++;
    }
    out.push({ t: 'p', c: inlines(para.join('\n')) });
  }
  return out;
}

function list(lines: string[], i: number, out: Block[]): number {
  const first = LIST_ITEM.exec(lines[i])!;
  const ordered = /\d/.test(first[2]);
  const marker = ordered ? first[2].slice(-1) : first[2];
  const baseIndent = first[1].length;
  const start = ordered ? parseInt(first[2], 10) : 1;
  const items: Block[][] = [];
  let tight = true;
  let sawBlank = false;
  while (i < lines.length) {
    const m = LIST_ITEM.exec(lines[i]);
    const sameList = m && m[1].length <= baseIndent + 1 && (ordered ? /\d/.test(m[2]) && m[2].endsWith(marker) : m[2] === marker);
    if (!m || !sameList) break;
    if (sawBlank && items.length > 0) tight = false;
    sawBlank = false;
    const contentIndent = m[1].length + m[2].length + Math.min((m[3] ?? ' ').length, 4);
    const body: string[] = [m[4] ?? ''];
    i++;
    while (i < lines.length) {
      const line = lines[i];
      if (blank(line)) {
        // A blank line continues the item only if indented content follows it.
        let j = i;
        while (j < lines.length && blank(lines[j])) j++;
        if (j < lines.length && indentOf(lines[j]) > baseIndent && !isSibling(lines[j], baseIndent)) {
          body.push('');
          i++;
          tight = false;
          continue;
        }
        sawBlank = true;
        i = j;
        break;
      }
      if (indentOf(line) > baseIndent && !isSibling(line, baseIndent)) {
        body.push(line.slice(Math.min(indentOf(line), contentIndent)));
        i++;
        continue;
      }
      if (!startsBlock(lines, i)) {
        body.push(line.trim()); // a lazy continuation of the item's paragraph
        i++;
        continue;
      }
      break;
    }
    items.push(blocks(body));
    if (sawBlank && !(i < lines.length && LIST_ITEM.test(lines[i]))) break;
  }
  out.push({ t: 'list', ordered, start, tight, items });
  return i;
}

/** A list marker at the list's own level (a new item, not a nested one). */
function isSibling(line: string, baseIndent: number): boolean {
  const m = LIST_ITEM.exec(line);
  return !!m && m[1].length <= baseIndent + 1 && m[4] !== undefined;
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  let inCode = false;
  for (let k = 0; k < s.length; k++) {
    const ch = s[k];
    if (ch === '\\' && s[k + 1] === '|') {
      cur += '|';
      k++;
    } else if (ch === '`') {
      inCode = !inCode;
      cur += ch;
    } else if (ch === '|' && !inCode) {
      cells.push(cur.trim());
      cur = '';
    } else {
      cur += ch;
    }
  }
  cells.push(cur.trim());
  return cells;
}

function table(lines: string[], i: number, out: Block[]): number {
  const head = splitRow(lines[i]);
  const align: Align[] = splitRow(lines[i + 1]).map((c) => {
    const l = c.startsWith(':');
    const r = c.endsWith(':');
    return l && r ? 'center' : r ? 'right' : l ? 'left' : null;
  });
  i += 2;
  const rows: Inline[][][] = [];
  while (i < lines.length && !blank(lines[i]) && lines[i].includes('|')) {
    const cells = splitRow(lines[i]);
    rows.push(head.map((_, k) => inlines(cells[k] ?? '')));
    i++;
  }
  out.push({ t: 'table', align, head: head.map((c) => inlines(c)), rows });
  return i;
}

// ---- inlines

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|~<>"'&]/;
const URL_BARE = /^https?:\/\/[^\s<>"'`]*[^\s<>"'`.,:;!?)\]}*_~]/;

export function inlines(src: string): Inline[] {
  const out: Inline[] = [];
  const text = (v: string) => {
    const last = out[out.length - 1];
    if (last && last.t === 'text') last.v += v;
    else out.push({ t: 'text', v });
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    const rest = src.slice(i);
    let m: RegExpExecArray | null;

    if (ch === '\\' && i + 1 < src.length && ESCAPABLE.test(src[i + 1])) {
      text(src[i + 1]);
      i += 2;
      continue;
    }
    if (ch === '\\' && src[i + 1] === '\n') {
      out.push({ t: 'br' });
      i += 2;
      continue;
    }
    if (ch === '\n') {
      out.push({ t: 'br' });
      i++;
      continue;
    }
    if (ch === '`') {
      const run = /^`+/.exec(rest)![0];
      const close = findRun(src, i + run.length, run);
      if (close !== -1) {
        let code = src.slice(i + run.length, close).replace(/\n/g, ' ');
        if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
        out.push({ t: 'code', v: code });
        i = close + run.length;
        continue;
      }
      text(run);
      i += run.length;
      continue;
    }
    if ((m = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest)) && (m[1] === '**' || leftFlankOk(src, i))) {
      out.push({ t: 'strong', c: inlines(m[2]) });
      i += m[0].length;
      continue;
    }
    if ((m = /^~~(?=\S)([\s\S]*?\S)~~/.exec(rest))) {
      out.push({ t: 'del', c: inlines(m[1]) });
      i += m[0].length;
      continue;
    }
    if (ch === '*' && (m = /^\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)/.exec(rest))) {
      out.push({ t: 'em', c: inlines(m[1]) });
      i += m[0].length;
      continue;
    }
    if (ch === '*' && (m = /^\*([^\s*])\*(?!\*)/.exec(rest))) {
      out.push({ t: 'em', c: [{ t: 'text', v: m[1] }] });
      i += m[0].length;
      continue;
    }
    if (ch === '_' && leftFlankOk(src, i) && (m = /^_(?=[^\s_])([\s\S]*?[^\s_])_(?![\p{L}\p{N}_])/u.exec(rest))) {
      out.push({ t: 'em', c: inlines(m[1]) });
      i += m[0].length;
      continue;
    }
    const link = ch === '[' || (ch === '!' && src[i + 1] === '[') ? linkAt(rest) : null;
    if (link) {
      const [whole, label, href] = link;
      const safe = safeHref(href);
      const children = inlines(label || href);
      if (safe) out.push({ t: 'link', href: safe, c: children });
      else for (const c of children) c.t === 'text' ? text(c.v) : out.push(c);
      i += whole.length;
      continue;
    }
    if (ch === '<' && (m = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest))) {
      out.push({ t: 'link', href: m[1], c: [{ t: 'text', v: m[1] }] });
      i += m[0].length;
      continue;
    }
    if ((ch === 'h' || ch === 'H') && !/[\p{L}\p{N}]/u.test(src[i - 1] ?? '') && (m = URL_BARE.exec(rest))) {
      out.push({ t: 'link', href: m[0], c: [{ t: 'text', v: m[0] }] });
      i += m[0].length;
      continue;
    }
    text(ch);
    i++;
  }
  return out;
}

/** `_` opens emphasis only when not inside a word (snake_case stays as it is). */
function leftFlankOk(src: string, i: number): boolean {
  return !/[\p{L}\p{N}_]/u.test(src[i - 1] ?? '');
}

function findRun(src: string, from: number, run: string): number {
  let j = from;
  while ((j = src.indexOf(run, j)) !== -1) {
    const before = src[j - 1];
    const after = src[j + run.length];
    if (before !== '`' && after !== '`') return j;
    j += run.length;
  }
  return -1;
}

/** `[label](href "title")` or `![alt](src)`: [whole, label, href]. */
function linkAt(rest: string): [string, string, string] | null {
  const image = rest.startsWith('!');
  const s = image ? rest.slice(1) : rest;
  let depth = 0;
  let k = 0;
  for (; k < s.length; k++) {
    if (s[k] === '\\') k++;
    else if (s[k] === '[') depth++;
    else if (s[k] === ']' && --depth === 0) break;
    else if (s[k] === '\n' && s[k + 1] === '\n') return null;
  }
  if (k >= s.length || s[k + 1] !== '(') return null;
  const m = /^\(\s*<?([^\s<>()]*(?:\([^\s()]*\)[^\s<>()]*)*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/.exec(s.slice(k + 1));
  if (!m) return null;
  return [(image ? '!' : '') + s.slice(0, k + 1) + m[0], s.slice(1, k), m[1]];
}

/** Only web and mail links; `javascript:`, `data:` and the like are refused. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^(https?:\/\/|mailto:)/i.test(h) && !/[\u0000-\u001f]/.test(h)) return h;
  return null;
}

// ---- DOM

export interface RenderOptions {
  /** The label of the copy button on code blocks. */
  copyLabel?: string;
}

/** Builds the DOM for a reply; code blocks carry a `.copy-code` button for the caller to wire. */
export function renderMarkdown(src: string, opts: RenderOptions = {}, doc: Document = document): DocumentFragment {
  const frag = doc.createDocumentFragment();
  const ctx: Ctx = { doc, copyLabel: opts.copyLabel ?? 'Copy' };
  for (const b of parse(src)) frag.appendChild(blockNode(b, ctx, false));
  return frag;
}

interface Ctx {
  doc: Document;
  copyLabel: string;
}

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function blockNode(b: Block, ctx: Ctx, tightItem: boolean): Node {
  const doc = ctx.doc;
  switch (b.t) {
    case 'p': {
      if (tightItem) {
        const f = doc.createDocumentFragment();
        appendInlines(f, b.c, doc);
        return f;
      }
      const p = el(doc, 'p');
      appendInlines(p, b.c, doc);
      return p;
    }
    case 'h': {
      const hx = el(doc, `h${Math.min(b.level + 1, 6)}` as 'h2', 'md-h');
      hx.dataset.level = String(b.level);
      appendInlines(hx, b.c, doc);
      return hx;
    }
    case 'code': {
      const wrap = el(doc, 'div', 'code-block');
      const head = el(doc, 'div', 'code-head');
      const lang = el(doc, 'span', 'code-lang');
      lang.textContent = b.lang || 'text';
      const copy = el(doc, 'button', 'copy-code');
      copy.type = 'button';
      copy.textContent = ctx.copyLabel;
      head.append(lang, copy);
      const pre = el(doc, 'pre');
      const code = el(doc, 'code');
      if (b.lang) code.dataset.lang = b.lang;
      code.textContent = b.text;
      pre.appendChild(code);
      wrap.append(head, pre);
      return wrap;
    }
    case 'quote': {
      const q = el(doc, 'blockquote');
      for (const c of b.c) q.appendChild(blockNode(c, ctx, false));
      return q;
    }
    case 'list': {
      const l = el(doc, b.ordered ? 'ol' : 'ul');
      if (b.ordered && b.start !== 1) l.setAttribute('start', String(b.start));
      for (const item of b.items) {
        const li = el(doc, 'li');
        for (const c of item) li.appendChild(blockNode(c, ctx, b.tight));
        l.appendChild(li);
      }
      return l;
    }
    case 'hr':
      return el(doc, 'hr');
    case 'table': {
      const wrap = el(doc, 'div', 'table-wrap');
      const t = el(doc, 'table');
      const thead = el(doc, 'thead');
      const tr = el(doc, 'tr');
      b.head.forEach((cell, k) => tr.appendChild(cellNode(doc, 'th', cell, b.align[k])));
      thead.appendChild(tr);
      const tbody = el(doc, 'tbody');
      for (const row of b.rows) {
        const r = el(doc, 'tr');
        row.forEach((cell, k) => r.appendChild(cellNode(doc, 'td', cell, b.align[k])));
        tbody.appendChild(r);
      }
      t.append(thead, tbody);
      wrap.appendChild(t);
      return wrap;
    }
  }
}

function cellNode(doc: Document, tag: 'th' | 'td', c: Inline[], align: Align | undefined): HTMLElement {
  const cell = el(doc, tag);
  if (align) cell.style.textAlign = align;
  appendInlines(cell, c, doc);
  return cell;
}

function appendInlines(parent: Node, items: Inline[], doc: Document): void {
  for (const n of items) {
    switch (n.t) {
      case 'text':
        parent.appendChild(doc.createTextNode(n.v));
        break;
      case 'code': {
        const c = el(doc, 'code');
        c.textContent = n.v;
        parent.appendChild(c);
        break;
      }
      case 'em':
      case 'strong':
      case 'del': {
        const e = el(doc, n.t);
        appendInlines(e, n.c, doc);
        parent.appendChild(e);
        break;
      }
      case 'link': {
        const a = el(doc, 'a');
        a.href = n.href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer nofollow';
        appendInlines(a, n.c, doc);
        parent.appendChild(a);
        break;
      }
      case 'br':
        parent.appendChild(el(doc, 'br'));
        break;
    }
  }
}
