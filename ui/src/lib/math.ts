// Math in replies: KaTeX, with its stylesheet and fonts, loaded only for a reply that has math
// (markdown.ts decides). What @mdit/plugin-katex did, on top of the parser markdown-it uses.

import katex from 'katex';
import 'katex/dist/katex.min.css';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

// One set of macros for every formula, as before: a `\gdef` holds for the formulas after it.
const macros = {};

/** TeX as KaTeX's HTML (and MathML, for screen readers): inline, or a block in its own paragraph. */
export function renderTex(content: string, displayMode: boolean): string {
  let html: string;
  try {
    html = katex.renderToString(content, {
      displayMode,
      macros,
      throwOnError: false,
      // \href, \url, \includegraphics, \htmlClass and the like stay off (`trust` is false).
      trust: false,
      strict: 'ignore',
      output: 'htmlAndMathml',
    });
  } catch (e) {
    if (!(e instanceof katex.ParseError)) throw e;
    const title = escape(String(e));
    return displayMode ? `<p class='katex-block katex-error' title='${title}'>${escape(content)}</p>\n` : `<span class='katex-error' title='${title}'>${escape(content)}</span>`;
  }
  return displayMode ? `<p class='katex-block'>${html}</p>\n` : html;
}
