// @vitest-environment jsdom
// The Markdown renderer, KaTeX and highlight.js are chunks loaded when a reply needs them (see
// src/lib/markdown.ts). Every other test starts with them loaded (test/setup.ts); these start
// from fresh modules, with nothing loaded, as a window does.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TurnSink } from '../src/backend/backend';
import type { Message, Project, Session } from '../src/backend/types';
import { partsFor } from '../src/lib/markdown';
import { message } from './fixtures';

const PROJECT: Project = { id: 2, name: 'Temp', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: 'Maths', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

const MATH = 'The area is $\\pi r^2$, and\n\n$$\n\\frac{a}{b} = c\n$$\n\nas shown.';
const CODE = 'Like this:\n\n```python\ndef total(xs):\n    return sum(xs)\n```';
const PLAIN = 'Nothing special here, just **bold** words.';

const msg = (over: Partial<Message>) => message({ session_id: 5, ...over });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1800 && !ok(); i++) await sleep(25);
  expect(ok(), what).toBe(true);
}

/** The app, the chat view and the renderer as a window starts them: nothing of the renderer loaded. */
async function freshWindow() {
  vi.resetModules();
  const markdown = await import('../src/lib/markdown');
  const { setLanguage } = await import('../src/lib/i18n');
  const { appInProject } = await import('./fakeBackend');
  const { mountChat } = await import('../src/views/chat');
  setLanguage('en');
  return { markdown, appInProject, mountChat };
}

/** Every reply's element as it is put in the page, grouped by the change that put it there. */
function watchReplies(root: HTMLElement): HTMLElement[][] {
  const passes: HTMLElement[][] = [];
  new MutationObserver((records) => {
    const added = records.flatMap((r) => [...r.addedNodes]).filter((n): n is HTMLElement => n instanceof HTMLElement)
      .flatMap((n) => (n.matches('.msg-assistant') ? [n] : [...n.querySelectorAll<HTMLElement>('.msg-assistant')]));
    if (added.length) passes.push(added);
  }).observe(root, { childList: true, subtree: true });
  return passes;
}

describe('what a reply needs loaded', () => {
  it('is the renderer alone for plain text, KaTeX for math, highlight.js for a code fence', () => {
    expect(partsFor(PLAIN), 'plain text needs nothing more than the renderer').toEqual(['markdown']);
    expect(partsFor(MATH), 'inline and display math').toEqual(['markdown', 'math']);
    expect(partsFor('\\(x\\) and \\[y\\]'), 'bracket delimiters are math too').toEqual(['markdown', 'math']);
    expect(partsFor(CODE), 'a fenced block').toEqual(['markdown', 'code']);
    expect(partsFor('~~~\nx\n~~~'), 'a tilde fence').toEqual(['markdown', 'code']);
    expect(partsFor('It costs $5 and `x`.'), 'a dollar may be math: loaded rather than shown raw').toContain('math');
  });
});

describe('a chat opened before the renderer is loaded', () => {
  beforeEach(() => document.body.replaceChildren());

  it('shows its replies once what they need is there, all in one pass, never as raw text', async () => {
    const { markdown, appInProject, mountChat } = await freshWindow();
    expect(markdown.markdownReady([PLAIN]), 'the test starts with nothing loaded, as a window does').toBe(false);
    const stored = [
      msg({ id: 1, content: 'Area?' }), msg({ id: 2, role: 'assistant', content: MATH }),
      msg({ id: 3, content: 'Code?' }), msg({ id: 4, role: 'assistant', content: CODE }),
      msg({ id: 5, content: 'And?' }), msg({ id: 6, role: 'assistant', content: PLAIN }),
    ];
    const { app } = appInProject({
      getSession: async () => SESSION,
      listMessages: async () => ({ messages: stored.slice().reverse(), next_before: null }),
      listAttachments: async () => [],
    }, PROJECT, { sessions: [SESSION] });
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});
    const passes = watchReplies(root);

    await app.chat.openSession(5, false);
    await until('the replies are shown once KaTeX and highlight.js have loaded', () => root.querySelectorAll('.msg-assistant').length === 3);
    await sleep(50);
    expect(passes.length, 'the replies were put in the page in one pass').toBe(1);
    expect(passes[0].length).toBe(3);
    const [math, code, plain] = passes[0];
    expect(math.querySelector('.katex-display .mfrac'), 'display math rendered by KaTeX').not.toBeNull();
    expect(math.querySelectorAll('p:not(.katex-block) > .katex').length, 'inline math rendered').toBe(1);
    expect(math.querySelector('.md')!.textContent, 'no TeX source shown as text').not.toContain('$');
    expect(code.querySelector('.code-block .hljs-keyword')?.textContent, 'code highlighted').toBe('def');
    expect(plain.querySelector('.md strong')?.textContent, 'plain Markdown rendered').toBe('bold');
    expect(root.querySelector('.md .pending-text'), 'no reply shown as its raw text').toBeNull();
  }, 60_000);

  it('a plain chat loads neither KaTeX nor highlight.js', async () => {
    const { markdown, appInProject, mountChat } = await freshWindow();
    const { app } = appInProject({
      getSession: async () => SESSION,
      listMessages: async () => ({ messages: [msg({ id: 2, role: 'assistant', content: PLAIN }), msg({ id: 1, content: 'Hi' })], next_before: null }),
      listAttachments: async () => [],
    }, PROJECT, { sessions: [SESSION] });
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});
    await app.chat.openSession(5, false);
    await until('the reply is shown', () => !!root.querySelector('.msg-assistant .md strong'));
    expect(markdown.markdownReady([PLAIN]), 'the renderer is there').toBe(true);
    expect(markdown.markdownReady(['$x$']), 'KaTeX was not loaded for a chat without math').toBe(false);
    expect(markdown.markdownReady(['```js\n```']), 'nor highlight.js for one without code').toBe(false);
  }, 60_000);

  it('a reply streamed before the renderer is there shows rendered once it is, its math included', async () => {
    const { markdown, appInProject, mountChat } = await freshWindow();
    let sink: TurnSink = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    const { app } = appInProject({
      createSession: async () => SESSION,
      listProjects: async () => [PROJECT],
      listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
      getSession: async () => SESSION,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listMemories: async () => [],
      sendMessage: (_id: number, _content: string, s: TurnSink) => {
        sink = s;
        started();
        return new Promise<void>(() => {});
      },
    }, PROJECT);
    const root = document.createElement('main');
    document.body.append(root);
    mountChat(app, root, () => {});
    void app.chat.send('Area?');
    await running;
    expect(markdown.markdownReady(['x']), 'nothing loaded when the first token comes').toBe(false);
    const shown: string[] = [];
    new MutationObserver(() => {
      const md = root.querySelector('[data-testid=message-live] .md');
      if (md) shown.push(md.textContent ?? '');
    }).observe(root, { childList: true, subtree: true, characterData: true });
    sink({ type: 'token', text: 'The area is ' });
    sink({ type: 'token', text: '$\\pi r^2$.' });
    // Something else changes in the chat before the next frame (its title, say): the list asks for
    // the same chunks, and the reply being written must still be drawn once they are there.
    app.emit('chat');

    await until('the live reply shows its math rendered', () => !!root.querySelector('[data-testid=message-live] .md .katex'));
    expect(shown.filter((text) => text.includes('$')), 'the TeX source was never shown as text').toEqual([]);
  }, 60_000);
});
