// The streaming workload of the benchmarks: a reply of about 40,000 characters (prose, lists, code,
// math, tables) that grows by 2,000 tokens, one frame per token.

const SECTION = [
  '## Step {n}',
  '',
  'Here is what the function does: it reads `input`, checks **every** field and returns a *clean* copy. See https://example.com/docs for more.',
  '',
  '- first, the easy part',
  '- then the $O(n \\log n)$ sort',
  '',
  '```ts',
  'export function clean(input: Record<string, unknown>): Record<string, string> {',
  '  return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v).trim()]));',
  '}',
  '```',
  '',
  '| field | kind |',
  '|---|---|',
  '| name | text |',
  '',
  '$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$',
  '',
].join('\n');

export const base = (() => {
  let s = '';
  for (let n = 1; s.length < 40_000; n++) s += SECTION.replace('{n}', String(n)) + '\n';
  return s;
})();

/** 2,000 tokens of a last section: prose in paragraphs, now and then a code block. */
export const tokens: string[] = (() => {
  const words = ['The', ' result', ' is', ' **sorted**', ' and', ' each', ' `key`', ' appears', ' once', ';', ' snake__case__word', ' stays', '.', '\n\n'];
  const out: string[] = [];
  for (let i = 0; out.length < 2000; i++) {
    if (i % 400 === 200) out.push('```py\n', 'for x in range(10):\n', '    print(x)\n', '\n', '    total += x\n', '```\n\n');
    out.push(words[i % words.length]);
  }
  out.length = 2000;
  return out;
})();

const full = base + tokens.join('');
const ends: number[] = [];
for (let n = 0, len = base.length; n < tokens.length; n++) ends.push((len += tokens[n].length));

/** The reply's text after `n + 1` tokens. */
export const frame = (n: number): string => full.slice(0, ends[n]);
export const frameCount = ends.length;

/** A paragraph of 80,000 characters without a blank line. */
export const longParagraph = 'The quick brown fox jumps over the lazy dog, snake__case__word and *some* emphasis, `code` here. '.repeat(900).slice(0, 80_000);
