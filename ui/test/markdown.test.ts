import { describe, expect, it } from 'vitest';
import { inlines, parse, renderMarkdown, safeHref } from '../src/lib/markdown';

function html(src: string): string {
  const div = document.createElement('div');
  div.appendChild(renderMarkdown(src));
  return div.innerHTML;
}

function dom(src: string): HTMLDivElement {
  const div = document.createElement('div');
  div.appendChild(renderMarkdown(src));
  return div;
}

describe('markdown: HTML is escaped, never interpreted', () => {
  it('shows tags as text', () => {
    const d = dom('Hello <script>alert(1)</script> <img src=x onerror=alert(2)> & <b>bold</b>');
    expect(d.querySelector('script')).toBeNull();
    expect(d.querySelector('img')).toBeNull();
    expect(d.querySelector('b')).toBeNull();
    expect(d.textContent).toBe('Hello <script>alert(1)</script> <img src=x onerror=alert(2)> & <b>bold</b>');
    expect(html('<script>x</script>')).toBe('<p>&lt;script&gt;x&lt;/script&gt;</p>');
  });

  it('escapes HTML inside code, headings, lists, tables and links', () => {
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
      '```html',
      '<div onclick="evil()">hi</div>',
      '```',
    ].join('\n');
    const d = dom(src);
    for (const tag of ['h1', 'iframe', 'b', 'i', 'u', 'div[onclick]']) {
      expect(d.querySelector(tag), tag).toBeNull();
    }
    expect(d.querySelector('pre code')!.textContent).toBe('<div onclick="evil()">hi</div>');
    expect(html(src)).toContain('&lt;div onclick="evil()"&gt;hi&lt;/div&gt;');
  });

  it('refuses javascript: and data: links and never loads images', () => {
    const d = dom('[a](javascript:alert(1)) [b](data:text/html,hi) ![img](https://example.com/t.png) [ok](https://ok.example/x)');
    const links = [...d.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/t.png', 'https://ok.example/x']);
    expect(d.querySelector('img')).toBeNull();
    expect(d.textContent).toContain('a b img ok');
    for (const a of links) expect(a.getAttribute('rel')).toContain('noopener');
    expect(safeHref(' JavaScript:alert(1)')).toBeNull();
    expect(safeHref('mailto:me@example.com')).toBe('mailto:me@example.com');
  });
});

describe('markdown: structure', () => {
  it('renders fenced code with its language, and an unclosed fence while streaming', () => {
    const d = dom('Before\n\n```rust\nfn main() {}\n');
    const code = d.querySelector('.code-block code')!;
    expect(code.textContent).toBe('fn main() {}');
    expect(d.querySelector('.code-lang')!.textContent).toBe('rust');
    expect(parse('```\na\n```')[0]).toEqual({ t: 'code', lang: '', text: 'a', open: false });
    expect(parse('```py\na')[0]).toEqual({ t: 'code', lang: 'py', text: 'a', open: true });
  });

  it('parses emphasis, inline code and leaves snake_case alone', () => {
    expect(html('**bold** *it* _it_ ~~gone~~ `a*b*c` snake_case_name')).toBe(
      '<p><strong>bold</strong> <em>it</em> <em>it</em> <del>gone</del> <code>a*b*c</code> snake_case_name</p>',
    );
    expect(inlines('*a **b** c*')).toEqual([{ t: 'em', c: [{ t: 'text', v: 'a ' }, { t: 'strong', c: [{ t: 'text', v: 'b' }] }, { t: 'text', v: ' c' }] }]);
    expect(html('2 * 3 * 4')).toBe('<p>2 * 3 * 4</p>');
  });

  it('parses lists, nested lists, quotes, headings, rules and tables', () => {
    expect(html('1. one\n2. two\n   - sub\n3. three')).toBe('<ol><li>one</li><li>two<ul><li>sub</li></ul></li><li>three</li></ol>');
    expect(html('- a\n- b')).toBe('<ul><li>a</li><li>b</li></ul>');
    expect(html('> quoted\n> more')).toBe('<blockquote><p>quoted<br>more</p></blockquote>');
    expect(html('## Title\ntext\n\n---')).toBe('<h3 class="md-h" data-level="2">Title</h3><p>text</p><hr>');
    expect(html('| a | b |\n|:--|--:|\n| 1 | 2 |')).toBe(
      '<div class="table-wrap"><table><thead><tr><th style="text-align: left;">a</th><th style="text-align: right;">b</th></tr></thead>' +
        '<tbody><tr><td style="text-align: left;">1</td><td style="text-align: right;">2</td></tr></tbody></table></div>',
    );
  });

  it('links bare URLs and keeps Korean text and line breaks', () => {
    expect(html('안녕하세요\n다음 줄 https://example.com/a.')).toBe(
      '<p>안녕하세요<br>다음 줄 <a href="https://example.com/a" target="_blank" rel="noopener noreferrer nofollow">https://example.com/a</a>.</p>',
    );
  });
});
