// Every code the server can send has the UI's words, in English and Korean. The codes are read
// from the Rust sources, so a new `Error::invalid("…")` (or conflict, startup, an upstream code, a
// stored reply's code, a reason the context inspector or the files panel shows) without a sentence
// here fails this test instead of showing English in a Korean window.
//
// Reading the sources (rather than a list the Rust side writes) needs no Rust build before
// `npm test` and cannot go stale: the literals are the codes. The patterns below are the few
// shapes in which the server writes a code; a code built some other way would be missed, so keep
// to them.

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

function codes(patterns: RegExp[], only?: (file: string) => boolean): Map<string, string> {
  const found = new Map<string, string>();
  for (const { file, text } of sources) {
    if (only && !only(file)) continue;
    for (const re of patterns) for (const m of text.matchAll(re)) found.set(m[1], file);
  }
  return found;
}

/** Maru's own error codes. */
const ownCodes = () => {
  const found = codes([
    /\b(?:invalid|conflict|startup)\(\s*"([a-z_]+)"/g, // Error::invalid("code", …) and the like
    /(?<!Upstream\s*\{\s*)\bcode:\s*"([a-z_]+)"/g, // TurnEvent::Error { code: "…" }
    /\bErrorBody::new\(\s*"([a-z_]+)"/g, // ErrorBody::new("code", …)
    /=> "([a-z_]+)"\.into\(\)/g, // Error::code(): not_found, unauthorized, newer_schema, internal
  ]);
  for (const [code, file] of codes([/const ERROR_CODE_\w+: &str = "([a-z_]+)"/g])) found.set(code, file);
  return found;
};

/** The model server's, as the UI receives them: `model_server.<code>`. */
const upstreamCodes = () => {
  const found = codes([/Upstream\s*\{\s*code:\s*"([a-z_]+)"/g]);
  for (const [code, file] of codes([/LlmError::\w+(?:\s*\{[^}]*\})?\s*=> "([a-z_]+)"/g], (f) => f === path.join('llm', 'error.rs'))) found.set(code, file);
  return new Map([...found].map(([c, f]) => [`model_server.${c}`, f]));
};

/** Reasons (context inspector, file notes). */
const reasonCodes = () => codes([
  /\b(?:Reason|Note|Absent)::new\(\s*"([a-z_]+)"/g,
  /\bof\(\s*"([a-z_]+)"\)/g, // prompt::changes: a section's change
  /\bBudget\(\s*"([a-z_]+)"/g, // prompt::budget: which budget cut
]);

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

const missing = (found: Map<string, string>, table: Readonly<Record<string, { en: string; ko: string }>>) =>
  [...found].filter(([code]) => !table[code]?.ko).map(([code, file]) => `${code} (${file})`);

describe('every code the server sends has Korean words', () => {
  it('finds the codes in the Rust sources (the patterns still match)', () => {
    const own = ownCodes();
    for (const code of ['name_taken', 'invalid_json', 'not_found', 'internal', 'turn_running', 'no_such_route', 'interrupted', 'data_dir_in_use']) {
      expect(own.has(code), `${code} should be found in src-tauri/src: a pattern no longer matches how the server writes codes`).toBe(true);
    }
    const up = upstreamCodes();
    for (const code of ['model_server.unreachable', 'model_server.timeout_idle', 'model_server.no_model']) expect(up.has(code), code).toBe(true);
    const reasons = reasonCodes();
    for (const code of ['no_custom_instructions', 'section_budget', 'moved_to_project', 'pdf_timeout', 'unread_pages']) expect(reasons.has(code), code).toBe(true);
  });

  it('error codes: a sentence for each in errors.ts', () => {
    expect(missing(ownCodes(), ERRORS), 'these codes would show English in a Korean window; add them to ui/src/lib/errors.ts').toEqual([]);
  });

  it('model-server codes: a sentence for each in errors.ts', () => {
    expect(missing(upstreamCodes(), ERRORS), 'add them to MODEL_SERVER in ui/src/lib/errors.ts').toEqual([]);
  });

  it('reasons: a sentence for each in reasons.ts', () => {
    expect(missing(reasonCodes(), REASONS), 'add them to ui/src/lib/reasons.ts').toEqual([]);
  });

  it('the names a Korean sentence puts in are the ones the server sends with its code', () => {
    // Each `invalid("code", …)` / `conflict("code", …)` and the `.with("name", …)` calls chained
    // on it.
    const raised = (code: string) => sources.flatMap(({ file, text }) =>
      [...text.matchAll(new RegExp(`\\b(?:invalid|conflict)\\(\\s*"${code}"`, 'g'))].map((m) => {
        let end = closing(text, m.index + m[0].indexOf('('));
        const params = new Set<string>();
        for (let w; (w = /^\s*\.with\(\s*"(\w+)"/.exec(text.slice(end + 1))); ) {
          params.add(w[1]);
          end = closing(text, end + 1 + w[0].indexOf('('));
        }
        return { file, params };
      }));
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
