// The entry script's budget: what every window downloads and parses before it shows anything.
// The Markdown renderer, KaTeX, highlight.js, the Settings dialog and the side panels are chunks
// loaded when needed (see src/lib/markdown.ts, src/views/settingsLink.ts, src/views/layout.ts);
// a static import of one of them, or a view grown too big, fails the build here instead of
// slowing every start.

import type { Plugin } from 'vite';

/** At most this many bytes (uncompressed) in the entry script. */
export const ENTRY_BUDGET = 300_000;

interface Chunk {
  type: 'chunk' | 'asset';
  isEntry?: boolean;
  fileName: string;
  code?: string;
}

/** The entry scripts over `budget`, each with its size, for the build's error. */
export function overBudget(bundle: Record<string, Chunk>, budget = ENTRY_BUDGET): { file: string; bytes: number }[] {
  return Object.values(bundle)
    .filter((c) => c.type === 'chunk' && c.isEntry)
    .map((c) => ({ file: c.fileName, bytes: Buffer.byteLength(c.code ?? '') }))
    .filter((c) => c.bytes > budget);
}

/** Fails `vite build` when the entry script is over ENTRY_BUDGET. */
export function entryBudget(budget = ENTRY_BUDGET): Plugin {
  return {
    name: 'maru-entry-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const over = overBudget(bundle as unknown as Record<string, Chunk>, budget);
      if (over.length) {
        this.error(over.map((c) => `${c.file} is ${c.bytes} bytes, over the entry script's budget of ${budget}: load what it does not need at start with import()`).join('; '));
      }
    },
  };
}
