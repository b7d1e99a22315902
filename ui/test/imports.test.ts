// The UI's layers, as its imports draw them: no module reaches back to one that reaches it (a
// cycle makes a change anywhere in it a change everywhere, and an import order that can break at
// start); state (`state/`) knows no view; views reach the server only through state.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../src');

/** Every hand-written module of src/ (the generated API types import nothing of ours). */
function modules(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : modules(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a module's source imports of ours, type-only imports and re-exports included (they tie
 *  the two modules together as much as any other import does), as paths relative to src/. */
export function importsOf(source: string, from: string): string[] {
  const specs = [
    ...source.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]);
  return specs.filter((s) => s.startsWith('.')).map((s) => resolveModule(join(dirname(from), s)));
}

function resolveModule(path: string): string {
  for (const candidate of [path, `${path}.ts`, join(path, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return relative(SRC, candidate);
    } catch {
      // not this one
    }
  }
  return relative(SRC, path);
}

export type Graph = Map<string, string[]>;

function graphOfSrc(): Graph {
  return new Map(modules().map((path) => [relative(SRC, path), importsOf(readFileSync(path, 'utf8'), path)]));
}

/** A cycle of the graph as the path that closes it (`a → b → a`), or null when it has none. */
export function findCycle(graph: Graph): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

/** The imports that break a layer's rule, as `from → to`. */
export function layerBreaks(graph: Graph): string[] {
  const breaks: string[] = [];
  for (const [from, tos] of graph) {
    for (const to of tos) {
      // State is what views draw; a view is drawn from it, never the other way.
      if (from.startsWith('state/') && (to.startsWith('views/') || to === 'app.ts')) breaks.push(`${from} → ${to}`);
      // A view reads the API's data shapes (and the bounds it declares); the calls go through state.
      if (from.startsWith('views/') && to.startsWith('backend/') && to !== 'backend/types.ts' && !to.startsWith('backend/generated/')) breaks.push(`${from} → ${to}`);
    }
  }
  return breaks;
}

describe('the import graph of ui/src', () => {
  const graph = graphOfSrc();

  it('is read: every module is found with what it imports', () => {
    expect(graph.get('main.ts'), 'main.ts imports the app it starts').toContain('app.ts');
    expect(graph.get('views/chat.ts'), 'a type-only import counts').toContain('app.ts');
  });

  it('has no cycle', () => {
    const cycle = findCycle(graph);
    expect(cycle?.join(' → ') ?? null, 'a module imports one that imports it back: move what both need to a module both import').toBeNull();
  });

  it('keeps state free of views and views off the backend', () => {
    expect(layerBreaks(graph), 'state imports no view (or the app that composes it); views call the server only through state').toEqual([]);
  });

  it('keeps state off the page: no DOM, address bar or history in state/', () => {
    const touching = [...graph.keys()].filter((m) => m.startsWith('state/'))
      .filter((m) => /\b(document|history|location)\.[A-Za-z]|\bwindow\.addEventListener\b/.test(readFileSync(join(SRC, m), 'utf8')));
    expect(touching, 'the page is the views\' (and lib/router.ts owns the address bar)').toEqual([]);
  });

  it('keeps views from reaching the backend through the app', () => {
    const reaching = [...graph.keys()].filter((m) => m.startsWith('views/'))
      .filter((m) => /\.backend\b/.test(readFileSync(join(SRC, m), 'utf8')));
    expect(reaching, 'a view asks the state, which asks the server').toEqual([]);
  });

  it('would see a cycle and a broken layer (the checks can fail)', () => {
    const cyclic: Graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']]]);
    expect(findCycle(cyclic)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
    expect(findCycle(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toBeNull();
    expect(importsOf("import type { App } from '../app';\nexport { x } from './x';", join(SRC, 'state/chat.ts'))).toEqual(['app.ts', 'state/x']);
    expect(layerBreaks(new Map([['state/chat.ts', ['views/toast.ts']], ['views/chat.ts', ['backend/http.ts', 'backend/types.ts']]])))
      .toEqual(['state/chat.ts → views/toast.ts', 'views/chat.ts → backend/http.ts']);
  });
});
