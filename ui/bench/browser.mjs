// `node bench/browser.mjs`: the streaming benchmark (bench/workload.ts) in Chromium, with the
// browser test's playwright-core (run `npm ci` in tests/e2e first) and CHROMIUM (default
// /usr/bin/chromium). Prints the cost of one frame, cached and not, and of one 80,000-character
// paragraph.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tests/e2e/package.json'));
const { chromium } = require('playwright-core');

const out = await build({
  entryPoints: [path.join(here, 'browser-entry.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  write: false,
  loader: { '.css': 'empty' },
  target: 'es2022',
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>');
  await page.addScriptTag({ content: out.outputFiles[0].text });
  const r = await page.evaluate(() => window.runBench());
  const f = (x) => `${x.toFixed(2)} ms`;
  const line = (name, s) => console.log(`${name.padEnd(44)} mean ${f(s.mean)}  median ${f(s.median)}  p95 ${f(s.p95)}  max ${f(s.max)}  (${s.n} frames)`);
  console.log(`Streaming ${r.tokens} tokens into a ${r.replyChars.toLocaleString('en')}-character reply, one frame per token (Chromium):`);
  console.log(`${'first frame (renders the reply so far)'.padEnd(44)} ${f(r.firstFrame)}`);
  line('per frame, completed blocks cached', r.cached);
  line('per frame, whole text parsed (comparison)', r.whole);
  line('one 80,000-character paragraph', r.paragraph80k);
} finally {
  await browser.close();
}
