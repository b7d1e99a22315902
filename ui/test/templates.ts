// The server's prompt templates (prompts/*.md, Handlebars), rendered here as the server renders
// them, so that a test reads back the text the server really writes, not a copy that drifts from
// it. Only what those templates use: `{{name}}`, `{{#if x}}`, `{{#if (eq x "word")}}`, `{{#each
// list}}` (each with `{{else}}`), comments, and Handlebars' rule that a line holding only a
// block tag or a comment leaves no line behind. Values are not escaped (the server's are not).

import fs from 'node:fs';
import path from 'node:path';

const PROMPTS = path.resolve(__dirname, '../../prompts');

type Vars = Record<string, unknown>;
type Node = { text: string } | { name: string } | Block;

/** `prompts/<name>.md` rendered with `vars`, as the server writes it (before any trimming). */
export function render(name: string, vars: Vars): string {
  const source = fs.readFileSync(path.join(PROMPTS, `${name}.md`), 'utf8');
  return run(parse(tokens(source), name), vars, name);
}

type Token = { text: string } | { tag: string };

/** The template as text and tags, standalone block lines taken out whole. */
function tokens(src: string): Token[] {
  const tags = [...src.matchAll(/\{\{(!--[\s\S]*?--|[\s\S]*?)\}\}/g)].map((m) => ({ tag: m[1].trim(), start: m.index, end: m.index + m[0].length }));
  const out: Token[] = [];
  let at = 0;
  for (const t of tags) {
    let [from, to] = [t.start, t.end];
    if (/^(#|\/|else$|!)/.test(t.tag)) {
      const lineStart = src.lastIndexOf('\n', t.start - 1) + 1;
      const nl = src.indexOf('\n', t.end);
      const lineEnd = nl === -1 ? src.length : nl + 1;
      if (/^[ \t]*$/.test(src.slice(lineStart, t.start)) && /^[ \t\r]*\n?$/.test(src.slice(t.end, lineEnd)) && lineStart >= at) {
        [from, to] = [lineStart, lineEnd];
      }
    }
    out.push({ text: src.slice(at, from) }, { tag: t.tag });
    at = to;
  }
  out.push({ text: src.slice(at) });
  return out;
}

type Block = { block: 'if' | 'each'; expr: string; yes: Node[]; no: Node[] };

function parse(toks: Token[], name: string): Node[] {
  const root: Node[] = [];
  // The blocks open, each with the branch text goes into (`yes`, or `no` after `{{else}}`).
  const open: { node: Block; branch: Node[] }[] = [];
  const into = () => open.at(-1)?.branch ?? root;
  for (const t of toks) {
    if ('text' in t) {
      if (t.text) into().push({ text: t.text });
      continue;
    }
    const start = /^#(if|each)\s+([\s\S]+)$/.exec(t.tag);
    if (t.tag.startsWith('!')) continue;
    if (start) {
      const node: Block = { block: start[1] as 'if' | 'each', expr: start[2].trim(), yes: [], no: [] };
      into().push(node);
      open.push({ node, branch: node.yes });
    } else if (t.tag === 'else') {
      const top = open.at(-1);
      if (!top) throw new Error(`${name}: {{else}} outside a block`);
      top.branch = top.node.no;
    } else if (t.tag === '/if' || t.tag === '/each') {
      const top = open.pop();
      if (top?.node.block !== t.tag.slice(1)) throw new Error(`${name}: {{${t.tag}}} closes nothing open`);
    } else {
      into().push({ name: t.tag });
    }
  }
  if (open.length) throw new Error(`${name}: {{#${open[0].node.block}}} is never closed`);
  return root;
}

function value(expr: string, vars: Vars): unknown {
  const eq = /^\(eq\s+(\S+)\s+"([^"]*)"\)$/.exec(expr);
  if (eq) return vars[eq[1]] === eq[2];
  return vars[expr];
}

function truthy(v: unknown): boolean {
  return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && v !== false && v !== '' && v !== 0;
}

function run(nodes: Node[], vars: Vars, name: string): string {
  let out = '';
  for (const n of nodes) {
    if ('text' in n) out += n.text;
    else if ('name' in n) {
      // The server renders in strict mode: a name it was not given is an error, not "".
      if (!(n.name in vars)) throw new Error(`${name}: {{${n.name}}} is not given`);
      out += String(vars[n.name] ?? '');
    } else if (n.block === 'if') {
      out += run(truthy(value(n.expr, vars)) ? n.yes : n.no, vars, name);
    } else {
      const list = value(n.expr, vars);
      out += Array.isArray(list) && list.length ? list.map((item) => run(n.yes, item as Vars, name)).join('') : run(n.no, vars, name);
    }
  }
  return out;
}
