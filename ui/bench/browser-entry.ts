// Bundled by bench/browser.mjs and run in Chromium: the figures of markdown.bench.ts in a real DOM.
import { loadMarkdownFor, MarkdownStream, renderMarkdownHtml } from '../src/lib/markdown';
import { base, frame, frameCount, longParagraph } from './workload';

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const pick = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / s.length, median: pick(0.5), p95: pick(0.95), max: s[s.length - 1] };
}

async function run() {
  // The renderer, KaTeX and highlight.js, which the app loads when a reply needs them.
  await loadMarkdownFor(['$x$ ```']);
  renderMarkdownHtml('warm **up** `x` *y* https://a.example $x$\n\n```js\nlet a = 1;\n```');
  const md = document.createElement('div');
  md.className = 'md';
  document.body.appendChild(md);

  // The first frame renders the 40,000 characters already there; the rest one token each.
  const stream = new MarkdownStream();
  const cached: number[] = [];
  let first = 0;
  for (let i = 0; i < frameCount; i++) {
    const t0 = performance.now();
    stream.render(frame(i), md);
    const dt = performance.now() - t0;
    if (i === 0) first = dt;
    else cached.push(dt);
  }

  const whole: number[] = [];
  for (let i = 0; i < frameCount; i += 100) {
    const t0 = performance.now();
    md.innerHTML = renderMarkdownHtml(frame(i));
    whole.push(performance.now() - t0);
  }

  const para: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    md.innerHTML = renderMarkdownHtml(longParagraph);
    para.push(performance.now() - t0);
  }
  return { replyChars: base.length, tokens: frameCount, firstFrame: first, cached: stats(cached), whole: stats(whole), paragraph80k: stats(para) };
}

(window as unknown as { runBench: typeof run }).runBench = run;
