// The chat's model picker with several model servers: each server's models under its name, asked
// one server at a time, so that one that is slow or down never keeps the others' models from the
// user; choosing a model sets the chat's (server, model) pair in one request; the header names the
// server when it is not the default one; a chat's model no longer listed still shows.

import { beforeEach, describe, expect, it } from 'vitest';
import type { ModelInfo, Project, Session } from '../src/backend/types';
import { ApiError } from '../src/backend/backend';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
// The menu's code is loaded at the picker's first opening: loaded here first, so a click opens it at once.
import '../src/views/modelMenu';
import { appInProject, connection, connectionRoutes, unreachableServer } from './fakeBackend';

const PROJECT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const DESK = connection({ id: 1, name: 'Desk', base_url: 'http://127.0.0.1:8080/v1', default_model: 'gemma-2-9b' });
const LAPTOP = connection({ id: 2, name: 'Laptop', base_url: 'http://192.168.1.20:1234/v1', is_default: false });
const OFF = connection({ id: 3, name: 'Old box', base_url: 'http://10.0.0.3:8000/v1', is_default: false, enabled: false });
const model = (id: string): ModelInfo => ({ id, context_length: null, owned_by: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chat on `session`, the default server "Desk" answering only when `release` is called (and
 *  then with an error), "Laptop" at once, and "Old box" turned off. */
function chatWithServers(session: Session = SESSION) {
  let release: () => void = () => {};
  const deskAnswers = new Promise<void>((r) => (release = r));
  const routes = connectionRoutes([DESK, LAPTOP, OFF], async (c) => {
    if (c.id === LAPTOP.id) return [model('llama-3.1-8b'), model('qwen2.5-7b')];
    if (c.id === DESK.id) {
      await deskAnswers;
      throw unreachableServer(c);
    }
    throw new Error('a server that is off is never asked');
  });
  let current = session;
  const fake = appInProject({
    ...routes.methods,
    listMessages: async () => ({ messages: [], next_before: null }),
    updateSession: async (_id: number, patch: object) => (current = { ...current, ...(patch as Partial<Session>) }),
  }, PROJECT, { sessions: [session], settings: { model: 'gemma-2-9b' } });
  const { app } = fake;
  app.chat.session = session;
  const root = document.createElement('main');
  document.body.replaceChildren(root);
  mountChat(app, root, () => {});
  const items = () => [...document.querySelectorAll<HTMLElement>('.menu .menu-items > *')].map((el) => ({
    text: el.textContent?.trim() ?? '',
    heading: el.classList.contains('menu-heading'),
    disabled: (el as HTMLButtonElement).disabled ?? false,
    checked: el.classList.contains('menu-checked'),
    title: el.getAttribute('title'),
  }));
  const item = (text: string) => [...document.querySelectorAll<HTMLButtonElement>('.menu .menu-item')].find((b) => b.textContent?.trim() === text);
  return { app, root, calls: fake.calls, release, items, item };
}

describe('the chat’s model picker with several servers', () => {
  beforeEach(() => setLanguage('en'));

  it('groups the models by server as each answers: a server that is slow, then down, never holds up the other', async () => {
    const { app, root, calls, release, items, item } = chatWithServers();
    await app.servers.loadConnections();
    root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    const asked = calls.filter((c) => c.method === 'listModels').map((c) => c.args[0]);
    expect(asked, 'one request per server that is on, all at once').toEqual([1, 2]);
    const modelPart = () => items().slice(items().findIndex((i) => i.text === 'Model for this chat'));
    expect(modelPart().map((i) => i.text)).toEqual([
      'Model for this chat', 'Default model (gemma-2-9b)',
      'Desk · default', 'Checking…',
      'Laptop', 'llama-3.1-8b', 'qwen2.5-7b',
      'Manage servers…',
    ]);
    expect(items().find((i) => i.text === 'Old box'), 'a server that is off is not offered').toBeUndefined();
    expect(item('qwen2.5-7b')?.disabled, 'Laptop’s models can be chosen while Desk is still being asked').toBe(false);

    release();
    await sleep(10);
    const desk = modelPart().slice(2, 4);
    expect(desk[1], 'Desk’s group says, in a few words, why it has no models; the whole sentence on hover').toMatchObject({
      text: 'Not answering', disabled: true, title: 'Desk: Cannot reach the model server at http://127.0.0.1:8080/v1: connection refused',
    });
    expect(document.querySelector('.menu'), 'the menu stayed open while the answers came in').not.toBeNull();

    item('qwen2.5-7b')!.click();
    await sleep(10);
    expect(calls.filter((c) => c.method === 'updateSession').map((c) => c.args), 'one request sets the server and the model together')
      .toEqual([[5, { connection_id: 2, model: 'qwen2.5-7b' }]]);
    expect(root.querySelector('[data-testid=chat-model]')?.textContent).toBe('qwen2.5-7b');
    expect(root.querySelector('[data-testid=chat-server]')?.textContent, 'the header names the server: the model is not the default server’s').toBe('Laptop');
    expect(root.querySelector('[data-testid=chat-model-picker]')?.getAttribute('title')).toBe('Model: qwen2.5-7b on Laptop');

    // Back to the default: both cleared.
    root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    expect(items().find((i) => i.text === 'qwen2.5-7b')?.checked, 'the chat’s model is checked, in its server’s group').toBe(true);
    item('Default model (gemma-2-9b)')!.click();
    await sleep(10);
    expect(calls.filter((c) => c.method === 'updateSession').at(-1)?.args).toEqual([5, { connection_id: null, model: null }]);
    expect(root.querySelector('[data-testid=chat-server]')?.textContent, 'the header names the server even when it is the default one').toBe('Desk');
    expect(root.querySelector('[data-testid=chat-model]')?.textContent).toBe('gemma-2-9b');
  });

  it('is searched: what is typed narrows the models, each under its server’s name, and Enter chooses', async () => {
    const { app, root, calls, release, items } = chatWithServers();
    await app.servers.loadConnections();
    release();
    root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    const search = document.querySelector<HTMLInputElement>('.menu [data-testid=menu-search]')!;
    expect(document.activeElement, 'the search box has the focus: typing searches at once').toBe(search);
    search.value = 'QWEN';
    search.dispatchEvent(new Event('input'));
    expect(items().map((i) => i.text), 'the one model, with its section and its server').toEqual(['Model for this chat', 'Laptop', 'qwen2.5-7b']);
    search.value = 'mistral';
    search.dispatchEvent(new Event('input'));
    expect(items().map((i) => i.text), 'nothing found says so').toEqual(['Nothing matches']);
    search.value = 'llama';
    search.dispatchEvent(new Event('input'));
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await sleep(10);
    expect(calls.filter((c) => c.method === 'updateSession').map((c) => c.args), 'Enter chose the one model shown').toEqual([[5, { connection_id: 2, model: 'llama-3.1-8b' }]]);
    expect(root.querySelector('[data-testid=chat-server]')?.textContent).toBe('Laptop');
  });

  it('a new chat keeps the model chosen before its first message, and is saved with it', async () => {
    const { app, root, calls, release, item } = chatWithServers();
    app.chat.newChat(PROJECT.id);
    await app.servers.loadConnections();
    release();
    root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    item('qwen2.5-7b')!.click();
    await sleep(10);
    expect(calls.filter((c) => c.method === 'updateSession'), 'nothing is saved before the chat is').toEqual([]);
    expect(root.querySelector('[data-testid=chat-model]')?.textContent, 'the header shows the choice').toBe('qwen2.5-7b');
    expect(app.chat.draftModel).toEqual({ connection_id: 2, model: 'qwen2.5-7b' });
  });

  it('still shows a chat’s model its server no longer lists, and the chat’s server even when it is off', async () => {
    const gone = chatWithServers({ ...SESSION, connection_id: 2, model: 'mistral-7b' });
    await gone.app.servers.loadConnections();
    gone.root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    const laptop = gone.items().slice(gone.items().findIndex((i) => i.text === 'Laptop'));
    expect(laptop.slice(0, 4).map((i) => [i.text, i.checked])).toEqual([['Laptop', false], ['llama-3.1-8b', false], ['qwen2.5-7b', false], ['mistral-7b', true]]);
    document.body.replaceChildren();

    const off = chatWithServers({ ...SESSION, connection_id: 3, model: 'old-model' });
    await off.app.servers.loadConnections();
    expect(off.root.querySelector('[data-testid=chat-server]')?.textContent).toBe('Old box');
    off.root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    await sleep(10);
    const group = off.items().slice(off.items().findIndex((i) => i.text === 'Old box (off)'));
    expect(group[1], 'its model shows, checked, and says how to use it again').toMatchObject({ text: 'old-model', checked: true, disabled: true, title: 'This server is off: turn it on in Settings → Servers.' });
    expect(off.calls.filter((c) => c.method === 'listModels').map((c) => c.args[0]), 'a server that is off is not asked').not.toContain(3);
  });

  it('speaks Korean', async () => {
    setLanguage('ko');
    const { app, root, release, items } = chatWithServers({ ...SESSION, connection_id: 2, model: null });
    await app.servers.loadConnections();
    expect(root.querySelector('[data-testid=chat-model]')?.textContent).toBe('서버의 첫 모델');
    root.querySelector<HTMLElement>('[data-testid=chat-model-picker]')!.click();
    release();
    await sleep(10);
    const texts = items().map((i) => i.text);
    expect(texts).toEqual(expect.arrayContaining(['이 대화의 모델', '기본 모델 (gemma-2-9b)', '응답 없음', '서버 관리…']));
    expect(items().find((i) => i.text === '응답 없음')?.title, 'the server’s name, then the Korean sentence').toBe('Desk: 모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080/v1)');
    expect(root.querySelector('[data-testid=chat-model-picker]')?.getAttribute('title')).toBe('모델: Laptop의 첫 모델');
  });
});

describe('a chat whose server is turned off', () => {
  beforeEach(() => setLanguage('en'));

  it('says so when a message is refused, with a button to the servers, and keeps what was typed', async () => {
    const refusal = new ApiError('connection_off', 'this chat\'s server "Old box" is turned off; turn it on in settings, or choose another model', 409, { name: 'Old box' });
    for (const [lang, words, button] of [
      ['en', 'this chat\'s server "Old box" is turned off; turn it on in settings, or choose another model', 'Model server settings'],
      ['ko', '“Old box” 서버는 꺼져 있습니다. 설정에서 켜거나 다른 모델을 고르세요.', '모델 서버 설정'],
    ]) {
      setLanguage(lang);
      document.body.replaceChildren();
      const session: Session = { ...SESSION, connection_id: 3, model: 'old-model' };
      const { app, root } = (() => {
        const fake = appInProject({
          listMessages: async () => ({ messages: [], next_before: null }),
          sendMessage: async () => Promise.reject(refusal),
        }, PROJECT, { sessions: [session] });
        fake.app.chat.session = session;
        const main = document.createElement('main');
        document.body.append(main);
        mountChat(fake.app, main, () => {});
        return { app: fake.app, root: main };
      })();
      let asked = 0;
      app.on('showServerSettings', () => asked++);
      const composer = root.querySelector<HTMLTextAreaElement>('[data-testid=composer]')!;
      composer.value = 'Are you there?';
      root.querySelector<HTMLElement>('[data-testid=send]')!.click();
      await sleep(10);
      const toast = [...document.querySelectorAll<HTMLElement>('[data-testid=toast]')].at(-1)!;
      expect(toast.querySelector('.toast-text')?.textContent, `${lang}: which server is off, and what to do`).toBe(words);
      const action = toast.querySelector<HTMLElement>('[data-testid=toast-action]')!;
      expect(action.textContent, 'a way to the settings that turn it on').toBe(button);
      action.click();
      expect(asked, 'the button asks for the servers tab').toBe(1);
      expect(composer.value, 'nothing typed is lost').toBe('Are you there?');
      expect(app.chat.messages, 'nothing was stored, so nothing shows as sent').toEqual([]);
    }
  });
});
