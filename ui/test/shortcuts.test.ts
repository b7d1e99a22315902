import { beforeEach, describe, expect, it } from 'vitest';
import type { TurnSink } from '../src/backend/backend';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { shortcutGroups, shortcutOf } from '../src/lib/shortcuts';
import { mountLayout } from '../src/views/layout';
import { appInProject } from './fakeBackend';

const PROJECT: Project = { id: 2, name: 'Temp', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

const key = (init: KeyboardEventInit) => new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('keyboard shortcuts', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('recognises each shortcut with Ctrl or ⌘, and nothing else', () => {
    expect(shortcutOf(key({ key: 'k', ctrlKey: true }))).toBe('search');
    expect(shortcutOf(key({ key: 'k', metaKey: true }))).toBe('search');
    expect(shortcutOf(key({ key: 'O', ctrlKey: true, shiftKey: true }))).toBe('newChat');
    expect(shortcutOf(key({ key: 'o', metaKey: true, shiftKey: true }))).toBe('newChat');
    expect(shortcutOf(key({ key: 'o', ctrlKey: true })), 'Ctrl+O alone is the browser’s').toBeNull();
    expect(shortcutOf(key({ key: '/', ctrlKey: true }))).toBe('shortcuts');
    // On layouts where "/" is Shift+7, the key reported is "/" with Shift held.
    expect(shortcutOf(key({ key: '/', ctrlKey: true, shiftKey: true }))).toBe('shortcuts');
    expect(shortcutOf(key({ key: 'Escape' }))).toBe('stop');
    expect(shortcutOf(key({ key: 'k' })), 'typing a k is not a shortcut').toBeNull();
    expect(shortcutOf(key({ key: 'k', ctrlKey: true, altKey: true }))).toBeNull();
  });

  it('lists every shortcut, in English and in Korean', () => {
    const labels = (lang: string) => {
      setLanguage(lang);
      return shortcutGroups().flatMap((g) => g.rows.map((r) => `${r.keys.map((k) => k.join('+')).join(' / ')} ${r.label}`));
    };
    const en = labels('en');
    for (const expected of ['Ctrl+K Search every chat', 'Ctrl+Shift+O New chat', 'Ctrl+/ Show keyboard shortcuts', 'Esc Stop the reply being written', 'Enter Send the message', 'Shift+Enter New line']) {
      expect(en, `the list should have "${expected}"`).toContain(expected);
    }
    const ko = labels('ko');
    expect(ko).toContain('Ctrl+K 모든 대화 검색');
    expect(ko).toContain('Ctrl+Shift+O 새 대화');
    expect(ko).toContain('Ctrl+/ 키보드 단축키 보기');
    expect(ko).toContain('Esc 쓰고 있는 답 멈추기');
    expect(ko.length).toBe(en.length);
    expect(ko.some((l) => /[A-Za-z]{4,}/.test(l.replace(/Ctrl|Shift|Enter|Esc/g, ''))), 'no English left in the Korean list').toBe(false);
  });

  it('in the window: Ctrl+/ opens and closes the list, Ctrl+Shift+O starts a new chat, Esc stops the reply', async () => {
    let sink: TurnSink = () => {};
    const { app, calls } = appInProject({
      getSession: async () => SESSION,
      listMessages: async () => ({ messages: [], next_before: null }),
      listAttachments: async () => [],
      listMemories: async () => [],
      listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
      listProjects: async () => [PROJECT],
      sendMessage: (_id: number, _c: string, s: TurnSink) => {
        sink = s;
        return new Promise<void>(() => {});
      },
      stop: async () => ({ stopped: true }) as never,
    }, PROJECT, { sessions: [SESSION] });
    const root = document.createElement('div');
    document.body.append(root);
    mountLayout(app, root);
    await app.chat.openSession(5, false);

    document.dispatchEvent(key({ key: '/', ctrlKey: true }));
    const list = document.querySelector('dialog[open] [data-testid=shortcuts]');
    expect(list, 'Ctrl+/ opens the list').not.toBeNull();
    expect(list!.querySelectorAll('[data-testid=shortcut]').length).toBe(shortcutGroups().flatMap((g) => g.rows).length);
    expect(list!.textContent).toContain('Ctrl+Shift+O'.split('+').join('+'));
    document.dispatchEvent(key({ key: '/', ctrlKey: true }));
    expect(document.querySelector('dialog[open]'), 'Ctrl+/ again closes it').toBeNull();

    void app.chat.send('Hello');
    await sleep(10);
    sink({ type: 'token', text: 'Hi' });
    expect(app.chat.currentLive()).toBeDefined();
    document.dispatchEvent(key({ key: 'Escape' }));
    await sleep(10);
    expect(calls.some((c) => c.method === 'stop' && c.args[0] === 5), 'Esc asks the server to stop the reply').toBe(true);

    document.dispatchEvent(key({ key: 'O', ctrlKey: true, shiftKey: true }));
    expect(app.chat.session, 'Ctrl+Shift+O leaves the chat for a new one').toBeNull();
    expect(app.chat.draftProjectId, 'in the same project').toBe(2);
  });
});
