// Every class and id that style.css styles is one the UI draws (or a test looks for): a rule for
// something no view makes any more is weight every window parses for nothing.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const UI = resolve(__dirname, '..');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'node_modules' ? [] : files(path, ext);
    return ext.test(name) && !name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** Classes the libraries write into replies: highlight.js's token scopes, the task list plugin's. */
const FROM_LIBRARIES = [/^hljs-/, /^(class|function|language)_$/, /^inherited__$/, /^task-list-/, /^katex/];

/** The classes and ids the selectors of `css` name (attribute selectors and comments aside). */
export function selectorNames(css: string): string[] {
  const names = new Set<string>();
  const bare = css.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const m of bare.matchAll(/([^{}]+)\{/g)) {
    const selector = m[1].trim();
    if (selector.startsWith('@') || /^(from|to|\d+%)/.test(selector)) continue;
    for (const n of selector.replace(/\[[^\]]*\]/g, '').matchAll(/[.#](-?[A-Za-z_][\w-]*)/g)) names.add(n[1]);
  }
  return [...names];
}

/** The names of `names` that `code` never mentions, as a whole word or after a prefix it builds (`badge-${…}`). */
export function unusedNames(names: string[], code: string): string[] {
  const prefixes = [...code.matchAll(/([\w-]+-)\$\{/g)].map((m) => m[1]);
  const words = new Set(code.match(/[\w-]+/g) ?? []);
  return names.filter((n) => !words.has(n) && !prefixes.some((p) => n.startsWith(p)) && !FROM_LIBRARIES.some((r) => r.test(n)));
}

describe('style.css', () => {
  it('styles only what a view draws', () => {
    const css = files(join(UI, 'src'), /\.css$/).map((f) => readFileSync(f, 'utf8')).join('\n');
    const code = [...files(join(UI, 'src'), /\.ts$/), ...files(join(UI, 'test'), /\.ts$/), ...files(resolve(UI, '../tests/e2e'), /\.mjs$/), join(UI, 'index.html')]
      .map((f) => readFileSync(f, 'utf8')).join('\n');
    const names = selectorNames(css);
    expect(names.length, 'the selectors are read').toBeGreaterThan(200);
    expect(unusedNames(names, code), 'classes or ids no view, test or browser test names: remove their rules').toEqual([]);
  });

  it('would see a rule for a class nothing draws (the check can fail)', () => {
    const css = '/* .commented */ .used, .gone:focus { x: 1 } .badge-stopped > #main [data-x=".attr"] { y: 2 } @media (max-width: 1px) { .hljs-string { z: 3 } }';
    expect(selectorNames(css).sort()).toEqual(['badge-stopped', 'gone', 'hljs-string', 'main', 'used']);
    expect(unusedNames(selectorNames(css), "h('div', { id: 'main', class: ['used', `badge-${status}`] })")).toEqual(['gone']);
  });
});
