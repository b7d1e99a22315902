/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// `npm run dev` proxies /api to a `maru serve` on its default port; open the dev server with
// `#token=<the token maru printed>`.
export default defineConfig({
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
  },
});
