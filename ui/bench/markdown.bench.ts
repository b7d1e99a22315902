// @vitest-environment jsdom
// `npx vitest bench --run`: the cost of one frame while a reply streams (bench/workload.ts), each op one
// frame. "cached blocks" is what the chat does (MarkdownStream: completed blocks kept, the open
// block rendered again); "whole text" parses and sanitises everything every frame, for
// comparison. jsdom's DOM is several times slower than a browser's: `node bench/browser.mjs` runs
// the same workload in Chromium.
import { bench, describe } from 'vitest';
import { loadMarkdownFor, MarkdownStream, renderMarkdownHtml } from '../src/lib/markdown';
import { base, frame, frameCount, longParagraph } from './workload';

// The renderer, KaTeX and highlight.js, which the app loads when a reply needs them.
await loadMarkdownFor(['$x$ ```']);

describe(`one frame while streaming 2,000 tokens into a ${base.length.toLocaleString('en')}-character reply`, () => {
  let stream = new MarkdownStream();
  let into = document.createElement('div');
  let i = 0;
  bench('cached blocks (what the chat does)', () => {
    if (i === frameCount) {
      i = 0;
      stream = new MarkdownStream();
      into = document.createElement('div');
    }
    stream.render(frame(i++), into);
  }, { iterations: frameCount, time: 0, warmupIterations: 0, warmupTime: 0 });

  let j = 0;
  bench('whole text every frame (for comparison)', () => {
    const div = document.createElement('div');
    div.innerHTML = renderMarkdownHtml(frame(j++ % frameCount));
  }, { iterations: 5, time: 0, warmupIterations: 0, warmupTime: 0 });
});

describe('one 80,000-character paragraph', () => {
  bench('rendered and sanitised once', () => {
    renderMarkdownHtml(longParagraph);
  }, { iterations: 10, time: 0, warmupIterations: 1, warmupTime: 0 });
});
