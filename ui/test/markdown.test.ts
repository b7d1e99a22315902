// @vitest-environment jsdom
// (DOMPurify's parsing needs a DOM that walks the tree as browsers do; happy-dom drops the first
// element's tag.)
import { describe, expect, it, vi } from 'vitest';
import { MarkdownStream, renderMarkdown, renderMarkdownHtml, safeHref, splitPoint, splitUnfinished } from '../src/lib/markdown';

function html(src: string): string {
  const div = document.createElement('div');
  div.appendChild(renderMarkdown(src));
  return div.innerHTML.replace(/\n/g, '');
}

function dom(src: string): HTMLDivElement {
  const div = document.createElement('div');
  div.appendChild(renderMarkdown(src));
  return div;
}

/** Every element and attribute that could run script or fetch something. */
function assertInert(d: Element): void {
  for (const tag of ['script', 'img', 'iframe', 'object', 'embed', 'style', 'svg image', 'form', 'video', 'audio']) {
    expect(d.querySelector(tag), tag).toBeNull();
  }
  for (const e of d.querySelectorAll('*')) {
    for (const a of e.attributes) {
      expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
      if (a.name === 'href' || a.name === 'src' || a.name === 'xlink:href') expect(safeHref(a.value), `${a.name}=${a.value}`).not.toBeNull();
    }
  }
}

describe('markdown: HTML is escaped, never interpreted', () => {
  it('shows tags as text', () => {
    const d = dom('Hello <script>alert(1)</script> <img src=x onerror=alert(2)> & <b>bold</b>');
    expect(d.querySelector('script')).toBeNull();
    expect(d.querySelector('img')).toBeNull();
    expect(d.querySelector('b')).toBeNull();
    expect(d.textContent).toBe('Hello <script>alert(1)</script> <img src=x onerror=alert(2)> & <b>bold</b>');
    expect(html('<script>x</script>')).toBe('<p>&lt;script&gt;x&lt;/script&gt;</p>');
    assertInert(d);
  });

  it('escapes HTML inside code, headings, lists, tables, links and math', () => {
    const src = [
      '# <h1>title</h1>',
      '',
      '- <iframe src="x">',
      '',
      '| a | <b>b</b> |',
      '|---|---|',
      '| <i>1</i> | `<u>2</u>` |',
      '',
      '[<em>click</em>](https://example.com/?a=<x>)',
      '',
      '$\\text{<img src=x onerror=alert(1)>}$ $\\href{javascript:alert(1)}{x}$ $\\htmlClass{x}{y}$',
      '',
      '<div onclick="evil()">block</div>',
      '',
      '```html',
      '<div onclick="evil()">hi</div>',
      '```',
    ].join('\n');
    const d = dom(src);
    for (const tag of ['h1', 'iframe', 'b', 'i', 'u', 'div[onclick]']) {
      expect(d.querySelector(tag), tag).toBeNull();
    }
    expect(d.querySelector('pre code')!.textContent).toBe('<div onclick="evil()">hi</div>');
    expect(html(src)).toContain('&lt;div onclick="evil()"&gt;block&lt;/div&gt;');
    expect(d.querySelector('a[href^="javascript"]')).toBeNull();
    assertInert(d);
  });

  it('refuses javascript: and data: links and never loads images', () => {
    const d = dom('[a](javascript:alert(1)) [b](data:text/html,hi) ![img](https://example.com/t.png) [ok](https://ok.example/x) [c](JAVASCRIPT:alert(1)) <javascript:alert(1)> [d](vbscript:x)');
    const links = [...d.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/t.png', 'https://ok.example/x']);
    expect(d.querySelector('img')).toBeNull();
    expect(d.textContent).toContain('a b img ok c');
    for (const a of links) {
      expect(a.getAttribute('rel')).toContain('noopener');
      expect(a.getAttribute('rel')).toContain('noreferrer');
      expect(a.getAttribute('target')).toBe('_blank');
    }
    expect(safeHref(' JavaScript:alert(1)')).toBeNull();
    expect(safeHref('mailto:me@example.com')).toBe('mailto:me@example.com');
    expect(html('<mailto:me@example.com>')).toContain('href="mailto:me@example.com"');
    assertInert(d);
  });
});

describe('markdown: CommonMark and GFM', () => {
  it('leaves underscores inside words alone, snake__case__word included', () => {
    expect(html('snake__case__word and snake_case_name')).toBe('<p>snake__case__word and snake_case_name</p>');
    expect(html('**bold** *it* _it_ ~~gone~~ `a*b*c`')).toBe(
      '<p><strong>bold</strong> <em>it</em> <em>it</em> <s>gone</s> <code>a*b*c</code></p>',
    );
    expect(html('*a **b** c*')).toBe('<p><em>a <strong>b</strong> c</em></p>');
    expect(html('2 * 3 * 4')).toBe('<p>2 * 3 * 4</p>');
  });

  it('renders a GFM table (aligned columns, in a scrolling wrapper)', () => {
    const d = dom('| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | `x|y` |');
    const table = d.querySelector('.table-wrap > table')!;
    expect([...table.querySelectorAll('th')].map((c) => [c.textContent, c.style.textAlign])).toEqual([['a', 'left'], ['b', 'right']]);
    expect([...table.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent))).toEqual([['1', '2'], ['3', '`x']]);
  });

  it('parses lists, nested lists, quotes, headings, rules and task lists', () => {
    expect(html('1. one\n2. two\n   - sub\n3. three')).toBe('<ol><li>one</li><li>two<ul><li>sub</li></ul></li><li>three</li></ol>');
    expect(html('- a\n- b')).toBe('<ul><li>a</li><li>b</li></ul>');
    expect(html('> quoted\n> more')).toBe('<blockquote><p>quoted<br>more</p></blockquote>');
    expect(html('## Title\ntext\n\n---')).toBe('<h3 class="md-h" data-level="2">Title</h3><p>text</p><hr>');
    const tasks = dom('- [ ] todo\n- [x] done');
    expect([...tasks.querySelectorAll('input[type=checkbox]')].map((c) => [(c as HTMLInputElement).checked, (c as HTMLInputElement).disabled])).toEqual([[false, true], [true, true]]);
    expect(tasks.querySelector('[id]')).toBeNull();
  });

  it('links bare URLs and keeps Korean text and line breaks', () => {
    expect(html('안녕하세요\n다음 줄 https://example.com/a.')).toBe(
      '<p>안녕하세요<br>다음 줄 <a href="https://example.com/a" target="_blank" rel="noopener noreferrer nofollow">https://example.com/a</a>.</p>',
    );
    expect(html('example.com')).toBe('<p>example.com</p>');
  });
});

describe('markdown: code blocks', () => {
  it('highlights a fenced block of a known language, with its language and a copy button', () => {
    const d = dom('Before\n\n```ts\nconst x: number = 1; // one\n```');
    const block = d.querySelector('.code-block')!;
    expect(block.querySelector('.code-lang')!.textContent).toBe('ts');
    const copy = block.querySelector('button.copy-code')!;
    expect(copy.textContent).toBe('Copy');
    expect(copy.getAttribute('aria-label')).toBe('Copy code');
    const code = block.querySelector('pre code')!;
    expect(code.textContent).toBe('const x: number = 1; // one');
    expect(code.querySelector('.hljs-keyword')!.textContent).toBe('const');
    expect(code.querySelector('.hljs-comment')!.textContent).toBe('// one');
  });

  it('labels the copy button in the language given', () => {
    const d = document.createElement('div');
    d.appendChild(renderMarkdown('```\nplain <b>\n```', { copyLabel: '복사', copyTitle: '코드 복사', plainLabel: '텍스트' }));
    expect(d.querySelector('.copy-code')!.textContent).toBe('복사');
    expect(d.querySelector('.copy-code')!.getAttribute('title')).toBe('코드 복사');
    expect(d.querySelector('.code-lang')!.textContent).toBe('텍스트');
    expect(d.querySelector('pre code')!.textContent).toBe('plain <b>');
    expect(d.querySelector('pre code span')).toBeNull();
  });

  it('shows an unclosed fence (a reply still streaming) as code', () => {
    const d = dom('Before\n\n```rust\nfn main() {}\n');
    expect(d.querySelector('.code-block code')!.textContent).toBe('fn main() {}');
    expect(d.querySelector('.code-lang')!.textContent).toBe('rust');
  });
});

describe('markdown: math', () => {
  it('renders inline and display math with KaTeX (HTML and MathML)', () => {
    const d = dom('Euler: $e^{i\\pi} + 1 = 0$ and\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\nalso \\(\\sqrt{2}\\).');
    const inline = d.querySelectorAll('p > .katex');
    expect(inline.length).toBe(2);
    expect(inline[0].querySelector('math mi')!.textContent).toBe('e');
    expect(inline[0].querySelector('.katex-html')!.textContent).toContain('π');
    // The TeX source is not repeated as text next to the MathML.
    expect(d.querySelector('annotation')).toBeNull();
    expect(inline[0].querySelector('.katex-html')).not.toBeNull();
    const display = d.querySelector('.katex-display')!;
    expect(display.querySelector('math')!.getAttribute('display')).toBe('block');
    expect(display.querySelector('.mfrac')).not.toBeNull();
    // A root's sign is an SVG path, kept by the sanitiser.
    expect(inline[1].querySelector('svg path')).not.toBeNull();
    assertInert(d);
  });

  it('leaves prices and bad TeX readable', () => {
    expect(dom('It costs $5 and $10.').querySelector('.katex')).toBeNull();
    const bad = dom('$\\frac{1}{$');
    expect(bad.textContent).toContain('\\frac{1}{');
  });
});

describe('markdown: streaming', () => {
  it('splits after the last blank line outside a fence, never inside code or before a list item', () => {
    expect(splitPoint('a\n\nb\n')).toBe(3);
    expect(splitPoint('a\n\nb')).toBe(0); // the last line may still grow into a list item
    expect(splitPoint('```\nx\n\ny\n')).toBe(0);
    expect(splitPoint('```\nx\n\ny\n```\n\nz\n')).toBe(14);
    expect(splitPoint('- a\n\n- b\n')).toBe(0);
    expect(splitPoint('- a\n\n  more\n')).toBe(0);
    expect(splitPoint('$$\na\n\nb\n$$\n\nc\n')).toBe(12);
  });

  it('renders what streamed exactly as the finished reply, keeping completed blocks between frames', () => {
    const text = [
      '# Plan', '', 'Some **text** with $x^2$.', '', '```py', 'def f():', '', '    return 1', '```', '',
      '- one', '', '- two', '', '| a | b |', '|---|---|', '| 1 | 2 |', '', 'The end.', '',
    ].join('\n');
    const stream = new MarkdownStream();
    const into = document.createElement('div');
    let kept: Node | null = null;
    for (let i = 1; i <= text.length; i += 3) {
      stream.render(text.slice(0, i), into);
      if (i > 40 && !kept) kept = into.firstChild;
    }
    stream.render(text, into);
    const squeeze = (s: string) => s.replace(/>\n+</g, '><');
    expect(squeeze(into.innerHTML)).toBe(squeeze(dom(text).innerHTML));
    // The heading rendered early is the same node at the end: it was not rendered again.
    expect(into.firstChild).toBe(kept);
    expect(stream.cachedLength).toBeGreaterThan(text.indexOf('The end.') - 1);
    // Another reply starts over.
    stream.render('New', into);
    expect(into.innerHTML).toBe('<p>New</p>');
  });

  it('shows footnotes as they will be once their notes arrive, the cited blocks included', () => {
    const text = 'vLLM batches requests.[^paged]\n\nIt also caches prefixes.[^cache]\n\n[^paged]: PagedAttention, 2023.\n[^cache]: Automatic prefix caching.\n';
    // A clock that never moves: every whole rendering takes no time, so none is skipped (the
    // skipping has its own test below).
    const stream = new MarkdownStream({}, document, () => 0);
    const into = document.createElement('div');
    for (let i = 1; i <= text.length; i += 2) stream.render(text.slice(0, i), into);
    stream.render(text, into);
    const squeeze = (s: string) => s.replace(/>\n+</g, '><');
    expect(squeeze(into.innerHTML), 'the streamed reply ends as the finished one renders').toBe(squeeze(dom(text).innerHTML));
    expect([...into.querySelectorAll('.fn-ref')].map((e) => e.textContent)).toEqual(['[1]', '[2]']);
    expect([...into.querySelectorAll('.footnotes li')].map((e) => e.textContent?.trim())).toEqual(['PagedAttention, 2023.', 'Automatic prefix caching.']);
    expect(into.textContent, 'no reference is left as raw text').not.toContain('[^');
    expect(into.querySelector('[id]'), 'no ids: they would repeat across replies').toBeNull();
  });

  it('renders a slow reply with footnotes whole at most a tenth of the time, and always its last frame', () => {
    vi.useFakeTimers();
    try {
      // The clock's readings, in turn: the first whole rendering takes 20 ms (0 → 20), the next
      // frame comes 1 ms later.
      let times = [0, 20, 21];
      const stream = new MarkdownStream({}, document, () => (times.length > 1 ? times.shift()! : times[0]));
      const into = document.createElement('div');
      const text = (words: string) => `Cited.[^a] ${words}\n\n[^a]: The note.\n`;
      stream.render(text('first'), into);
      expect(into.textContent).toContain('first');
      stream.render(text('second'), into);
      expect(into.textContent, 'a frame within ten times the cost of the last whole rendering waits').toContain('first');
      times = [300];
      vi.advanceTimersByTime(250);
      expect(into.textContent, 'the frame that waited shows once its time has come, so the reply never ends stale').toContain('second');
    } finally {
      vi.useRealTimers();
    }
  });

  it('renders an 80,000-character paragraph in one pass (no quadratic parsing)', () => {
    const para = 'The quick brown fox jumps over the lazy dog, snake__case__word and *some* emphasis, `code` here. '.repeat(900).slice(0, 80_000);
    renderMarkdownHtml('warm **up** `x` *y* https://a.example $x$');
    const t0 = performance.now();
    const html = renderMarkdownHtml(para);
    const elapsed = performance.now() - t0;
    expect(html.startsWith('<p>The quick')).toBe(true);
    expect(html.split('<em>').length).toBe(para.split('*some*').length);
    // A generous sanity bound for a slow CI machine: the parse takes about 30 ms here, and the
    // sanitiser in this test DOM (jsdom, several times slower than a browser's) about as much
    // again; `npm run bench` prints the figures.
    expect(elapsed).toBeLessThan(1000);
  });
});

describe('markdown: unfinished math and code while streaming', () => {
  const streamed = (text: string) => {
    const into = document.createElement('div');
    new MarkdownStream().render(text, into);
    return into;
  };

  it('holds back an open $$ block, and renders it once it closes', () => {
    expect(splitUnfinished('Sum:\n\n$$\n\\sum_i')).toEqual({ done: 'Sum:\n\n', pending: '$$\n\\sum_i', kind: 'math' });
    expect(splitUnfinished('Sum:\n\n$$ \\frac{1}')).toEqual({ done: 'Sum:\n\n', pending: '$$ \\frac{1}', kind: 'math' });
    expect(splitUnfinished('Sum:\n\n$$')).toEqual({ done: 'Sum:\n\n', pending: '$$', kind: 'math' });
    const closed = 'Sum:\n\n$$\n\\sum_i i\n$$\n';
    expect(splitUnfinished(closed)).toEqual({ done: closed, pending: '', kind: null });
    expect(splitUnfinished('$$x^2$$\n\nmore').pending).toBe('');

    const open = streamed('Sum:\n\n$$\n\\frac{<b>1</b>}{');
    expect(open.querySelector('p')?.textContent).toBe('Sum:');
    expect(open.querySelector('.katex, .katex-error'), 'no half-formed math').toBeNull();
    const pending = open.querySelector('p.pending-text');
    expect(pending?.textContent).toBe('$$\n\\frac{<b>1</b>}{');
    expect(pending?.querySelector('b'), 'pending text is escaped').toBeNull();

    const done = streamed('Sum:\n\n$$\n\\frac{1}{2}\n$$\n');
    expect(done.querySelector('.katex-display .mfrac')).not.toBeNull();
    expect(done.querySelector('.pending')).toBeNull();
  });

  it('holds back an open \\[ block', () => {
    expect(splitUnfinished('a\n\n\\[\nx +')).toEqual({ done: 'a\n\n', pending: '\\[\nx +', kind: 'math' });
    expect(splitUnfinished('a\n\n\\[\nx + 1\n\\]\n').pending).toBe('');
    expect(streamed('a\n\n\\[\nx + 1\n\\]\n').querySelector('.katex-display')).not.toBeNull();
  });

  it('does not count $$ inside a code fence, and holds back an open fence', () => {
    const fenced = 'Shell:\n\n```sh\necho $$\n```\n\nDone.';
    expect(splitUnfinished(fenced)).toEqual({ done: fenced, pending: '', kind: null });
    expect(splitUnfinished('Shell:\n\n~~~sh\necho $$\n~~~\n').pending).toBe('');
    expect(splitUnfinished('Code:\n\n```py\ndef f():\n    return "$$"')).toEqual({ done: 'Code:\n\n', pending: '```py\ndef f():\n    return "$$"', kind: 'code' });
    expect(splitUnfinished('Code:\n\n~~~\nx\n```\n').kind, 'a ``` line does not close a ~~~ fence').toBe('code');
    expect(splitUnfinished('Code:\n\n````\n```\nx').kind, 'nor does a shorter run').toBe('code');
    // A fence inside display math is its content.
    expect(splitUnfinished('$$\n```\n$$\n').pending).toBe('');

    const open = streamed('Code:\n\n```js\nlet a = "<i>1</i>";');
    expect(open.querySelector('.code-block'), 'no half-formed code block').toBeNull();
    const pre = open.querySelector('pre.pending');
    expect(pre?.textContent).toBe('```js\nlet a = "<i>1</i>";');
    expect(pre?.querySelector('i')).toBeNull();
    expect(open.querySelector('p')?.textContent).toBe('Code:');

    const done = streamed('Code:\n\n```js\nlet a = 1;\n```\n');
    expect(done.querySelector('.code-block .hljs-keyword')?.textContent).toBe('let');
    expect(done.querySelector('.pending')).toBeNull();
  });

  it('holds back a fence in a list item or a quote', () => {
    expect(splitUnfinished('- item\n  ```py\n  x = 1')).toEqual({ done: '- item\n', pending: '  ```py\n  x = 1', kind: 'code' });
    expect(splitUnfinished('> $$\n> x').kind).toBe('math');
  });

  it('leaves inline math alone', () => {
    for (const text of ['Cost is $x$ and', 'It runs in $O(n \\log n)$ time', 'an inline $$x$$ here', 'price $5 and $$']) {
      expect(splitUnfinished(text)).toEqual({ done: text, pending: '', kind: null });
    }
    expect(streamed('It runs in $O(n)$ time').querySelector('p .katex')).not.toBeNull();
  });

  it('holds nothing back once the reply is complete: it renders as the Markdown library does', () => {
    // A finished reply is drawn by renderMarkdown, which renders an unclosed block as markdown-it does.
    const div = document.createElement('div');
    div.appendChild(renderMarkdown('Code:\n\n```py\nx = 1'));
    expect(div.querySelector('.code-block pre code')?.textContent).toBe('x = 1');
    expect(div.querySelector('.pending')).toBeNull();
    const math = document.createElement('div');
    math.appendChild(renderMarkdown('Sum:\n\n$$\n\\frac{1}{2}'));
    expect(math.querySelector('.katex-display')).not.toBeNull();
    expect(math.querySelector('.pending')).toBeNull();
  });

  it('streams a reply with code and math to exactly the finished rendering, keeping the blocks before', () => {
    const text = ['Intro.', '', '```py', 'x = "$$"', '```', '', '$$', '\\frac{1}{2}', '$$', '', 'The end.', ''].join('\n');
    const stream = new MarkdownStream();
    const into = document.createElement('div');
    let intro: Node | null = null;
    for (let i = 1; i <= text.length; i++) {
      stream.render(text.slice(0, i), into);
      if (i > 14 && !intro) intro = into.firstChild;
      expect(into.querySelector('.katex-error'), `no KaTeX error at ${i}`).toBeNull();
      const open = splitUnfinished(text.slice(0, i));
      expect(into.querySelectorAll('.pending').length).toBe(open.pending ? 1 : 0);
    }
    stream.render(text, into);
    const squeeze = (s: string) => s.replace(/>\n+</g, '><');
    expect(squeeze(into.innerHTML)).toBe(squeeze(dom(text).innerHTML));
    expect(into.firstChild).toBe(intro);
  });
});

describe('the reply being written', () => {
  it('keeps its rendered blocks between frames and shows one cursor at the end', async () => {
    const { liveNode, updateLiveNode } = await import('../src/views/message');
    const live = {
      sessionId: 1, text: '# Title\n\nFirst paragraph.\n\nSecond', reasoning: '', tools: [], usage: null, error: null,
      cutAfter: null, startedAt: 0, firstTokenAt: 0, stopping: false, attached: false, begun: Promise.resolve(), markBegun: () => {},
    };
    const el = liveNode(live);
    const heading = el.querySelector('.md h2');
    expect(heading?.textContent).toBe('Title');
    live.text += ' paragraph\n\n```js\nlet a = 1;\n```\n\n';
    updateLiveNode(el, live);
    expect(el.querySelector('.md h2')).toBe(heading);
    expect(el.querySelector('.md .code-block .hljs-keyword')?.textContent).toBe('let');
    expect(el.querySelectorAll('.cursor').length).toBe(1);
    live.text += 'Third';
    updateLiveNode(el, live);
    expect(el.querySelectorAll('.cursor').length).toBe(1);
    expect(el.querySelector('.md')!.lastElementChild!.textContent).toBe('Third');
    expect(el.querySelector('.md')!.lastElementChild!.lastElementChild!.className).toBe('cursor');
  });
});
