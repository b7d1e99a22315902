// The UI's functions stay short enough to read whole: a view that grows past MAX_LINES in one
// function (as `mountChat` once did, at 389) is split into named pieces instead.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../src');
const MAX_LINES = 80;

function modules(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // backend/: http.ts's one function is the table of the API's operations, one line each.
    // lib/i18n/: the words, no functions to speak of.
    if (statSync(path).isDirectory()) return name === 'backend' || name === 'i18n' ? [] : modules(path);
    return name.endsWith('.ts') && !name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** Every function, method and arrow bound to a name, with its length in lines. */
export function functionLengths(file: string, source: string): { name: string; lines: number }[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const out: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    let name: string | undefined;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) && node.body) {
      name = ts.isConstructorDeclaration(node) ? 'constructor' : node.name?.getText(sf);
    } else if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent)) {
      name = node.parent.name.getText(sf);
    }
    if (name) {
      const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
      out.push({ name, lines: line(node.getEnd()) - line(node.getStart(sf)) + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('the UI functions', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const long = modules().flatMap((path) =>
      functionLengths(path, readFileSync(path, 'utf8')).filter((f) => f.lines > MAX_LINES).map((f) => `${relative(SRC, path)}: ${f.name} (${f.lines} lines)`));
    expect(long, 'a function this long is split into named pieces (see views/messageList.ts)').toEqual([]);
  });

  it('would see a long one (the check can fail)', () => {
    const body = Array.from({ length: 90 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    expect(functionLengths('x.ts', `function long() {\n${body}\n}\nconst short = () => 1;`))
      .toEqual([{ name: 'long', lines: 92 }, { name: 'short', lines: 1 }]);
  });
});
