// What a window loads at start: the entry script stays within its budget (the build itself fails
// over it, scripts/entryBudget.ts), and the heavy parts of the UI are chunks of their own. Reads
// ui/dist as `npm run build` left it (and prints the sizes); without a build there is nothing to read.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ENTRY_BUDGET, overBudget } from '../scripts/entryBudget';

const DIST = resolve(__dirname, '../dist');
const built = existsSync(join(DIST, 'index.html'));

describe('the entry budget', () => {
  it('names an entry script over it, and only that', () => {
    const bundle = {
      'index.js': { type: 'chunk' as const, isEntry: true, fileName: 'assets/index.js', code: 'x'.repeat(ENTRY_BUDGET + 1) },
      'math.js': { type: 'chunk' as const, isEntry: false, fileName: 'assets/math.js', code: 'x'.repeat(ENTRY_BUDGET * 2) },
      'style.css': { type: 'asset' as const, fileName: 'assets/index.css' },
    };
    expect(overBudget(bundle), 'an entry one byte over fails; a lazy chunk has no budget').toEqual([{ file: 'assets/index.js', bytes: ENTRY_BUDGET + 1 }]);
    bundle['index.js'].code = '한'.repeat(ENTRY_BUDGET / 3);
    expect(overBudget(bundle), 'bytes, not characters: Korean words take three each').toEqual([]);
    bundle['index.js'].code += 'x';
    expect(overBudget(bundle).length).toBe(1);
  });
});

describe.skipIf(!built)('ui/dist, as built', () => {
  const html = built ? readFileSync(join(DIST, 'index.html'), 'utf8') : '';
  const entry = /<script type="module"[^>]*src="\/?(assets\/[^"]+\.js)"/.exec(html)?.[1] ?? '';
  const scripts = built ? readdirSync(join(DIST, 'assets')).filter((f) => f.endsWith('.js') || f.endsWith('.css')) : [];

  it('has an entry script within the budget, and the rest in chunks loaded when needed', () => {
    expect(entry, 'index.html loads one module script').not.toBe('');
    const sizes = scripts.map((f) => {
      const data = readFileSync(join(DIST, 'assets', f));
      return { file: f, bytes: data.length, gzip: gzipSync(data).length, entry: `assets/${f}` === entry };
    }).sort((a, b) => a.bytes - b.bytes);
    console.log(sizes.map((s) => `${s.entry ? 'entry ' : '      '}${s.file.padEnd(36)} ${String(s.bytes).padStart(8)} B  gzip ${String(s.gzip).padStart(7)} B`).join('\n'));
    const bytes = readFileSync(join(DIST, entry)).length;
    expect(bytes, `the entry script (${entry}) is what every window parses at start`).toBeLessThanOrEqual(ENTRY_BUDGET);
    for (const chunk of ['markdownRender', 'math', 'highlight', 'settingsDialog', 'contextPanel', 'memoryPanel', 'desktop']) {
      expect(scripts.some((f) => f.startsWith(`${chunk}-`) && f.endsWith('.js')), `${chunk} is a chunk of its own`).toBe(true);
      expect(html, `${chunk} is not preloaded at start`).not.toContain(`${chunk}-`);
    }
  });

  it('keeps KaTeX and highlight.js, and their styles, out of what loads at start', () => {
    const code = readFileSync(join(DIST, entry), 'utf8');
    expect(code, 'KaTeX is in its own chunk').not.toContain('KaTeX parse error');
    expect(code, 'highlight.js is in its own chunk').not.toContain('hljs-');
    expect(code, 'markdown-it is in its own chunk').not.toContain('markdown-it');
    expect(code, 'Tauri’s API loads in the desktop window only: a browser never parses it').not.toContain('__TAURI_INTERNALS__');
    const css = html.match(/href="\/?(assets\/[^"]+\.css)"/g) ?? [];
    for (const link of css) {
      const file = /assets\/[^"]+\.css/.exec(link)![0];
      expect(readFileSync(join(DIST, file), 'utf8'), `${file}: KaTeX's stylesheet (and its fonts) load with math`).not.toContain('KaTeX_Main');
    }
  });
});
