// Error and reason codes are one Rust list each (`Code`, `UpstreamCode`, `ReasonCode`, generated
// into `src/backend/generated/`), and `lib/errors.ts` and `lib/reasons.ts` are checked against them
// by the TypeScript compiler: a code without words fails the build. What the compiler cannot see is
// read here from the Rust sources: the params each place that raises a code sends with it
// (`.with("…")`), which a Korean sentence with `{name}` in it needs.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/lib/errors';
import { REASONS } from '../src/lib/reasons';

// The core's sources, and each crate below it as `<crate>/…` (llm/error.rs, store/…).
const SRC = path.resolve(__dirname, '../../src-tauri/src');
const CRATES = path.resolve(__dirname, '../../src-tauri/crates');

function rustFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? rustFiles(p) : e.name.endsWith('.rs') ? [p] : [];
  });
}

const roots: [string, string][] = [[SRC, ''], ...fs.readdirSync(CRATES).map((c): [string, string] => [path.join(CRATES, c, 'src'), c])];
const sources = roots.flatMap(([root, prefix]) =>
  rustFiles(root).map((file) => ({ file: path.join(prefix, path.relative(root, file)), text: fs.readFileSync(file, 'utf8') })),
);


/** The index of the `)` that closes the `(` at `open`, skipping string literals. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return text.length;
}


describe('every code the server sends has Korean words', () => {
  it('the names a Korean sentence puts in are the ones the server sends with its code', () => {
    // Each `invalid(Code::Name, …)` / `conflict(Code::Name, …)` and the `.with("name", …)` calls
    // chained on it.
    const variant = (code: string) => code.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
    // A setting out of its bounds is raised by `outside(Code::Name, …)` in store/settings.rs,
    // which always sends `min` and `max`: called by hand, or declared on the setting's line of
    // the settings macro (`in 1 ..= 1024 => Name "…"`).
    const bounded = (code: string) => sources.flatMap(({ file, text }) =>
      [...text.matchAll(new RegExp(`\\boutside\\(\\s*Code::${variant(code)}\\b|\\.\\.=\\s*[\\w.]+\\s*=>\\s*${variant(code)}\\s*"`, 'g'))]
        .map(() => ({ file, params: new Set(['min', 'max']) })));
    const raised = (code: string) => bounded(code).concat(sources.flatMap(({ file, text }) =>
      [...text.matchAll(new RegExp(`\\b(?:invalid|conflict)\\(\\s*Code::${variant(code)}\\b`, 'g'))].map((m) => {
        let end = closing(text, m.index + m[0].indexOf('('));
        const params = new Set<string>();
        for (let w; (w = /^\s*\.with\(\s*"(\w+)"/.exec(text.slice(end + 1))); ) {
          params.add(w[1]);
          end = closing(text, end + 1 + w[0].indexOf('('));
        }
        return { file, params };
      })));
    const named = Object.entries(ERRORS).filter(([, w]) => w.named);
    expect(named.length, 'some sentences use the server’s params').toBeGreaterThan(5);
    for (const [code, w] of named) {
      const wanted = [...w.named!.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const sites = raised(code);
      expect(sites.length, `${code} is raised in src-tauri/src`).toBeGreaterThan(0);
      for (const site of sites) {
        expect(wanted.filter((p) => !site.params.has(p)), `${code} in ${site.file}: its Korean sentence needs params this place does not send (.with("…"))`).toEqual([]);
      }
    }
  });

  it('every sentence is written in both languages', () => {
    for (const [code, w] of [...Object.entries(ERRORS), ...Object.entries(REASONS)]) {
      expect(w.en.trim(), code).not.toBe('');
      expect(w.ko, `${code}: the Korean sentence is Korean`).toMatch(/[가-힣]/);
      expect(w.en, `${code}: the English sentence is English`).not.toMatch(/[가-힣]/);
    }
  });
});
