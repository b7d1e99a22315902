/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import { entryBudget } from './scripts/entryBudget';

/**
 * KaTeX's stylesheet names each font three times (woff2, woff, ttf); every engine Maru runs in
 * (WebKitGTK, Chromium, Firefox) loads woff2, and the other two would add ~800 KB to the binary,
 * which carries the UI.
 */
function katexWoff2Only(): Plugin {
  return {
    name: 'katex-woff2-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/katex(\.min)?\.css$/.test(id)) return null;
      return code.replace(/,\s*url\([^)]*\.woff\) format\("woff"\),\s*url\([^)]*\.ttf\) format\("truetype"\)/g, '');
    },
  };
}

// `npm run dev` proxies /api to a `maru serve` on its default port; open the dev server with
// `#token=<the token maru printed>`.
export default defineConfig({
  plugins: [katexWoff2Only(), entryBudget()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  server: {
    proxy: { '/api': process.env.MARU_URL ?? 'http://127.0.0.1:8765' },
  },
  test: {
    environment: 'happy-dom',
    include: ['test/**/*.test.ts'],
    // What main.ts wires at start, for every test.
    setupFiles: ['test/setup.ts'],
  },
});
