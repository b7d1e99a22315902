// The settings a user meets: the model servers as a list (the default first; each one's address,
// whether a key is saved, on or off, and what it answers, asked again when its address or key
// changes), a key that is written and never shown, a default that cannot be turned off or removed
// (and says so in the user's language when a stale list tries), the model list's button saying
// what it does, the hints saying in words where things go in the system prompt, and the Default
// project's tooltip naming the settings tab as the tab is called. In English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ConnectionView, ModelInfo, Project } from '../src/backend/types';
import { dicts, setLanguage, t } from '../src/lib/i18n';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { projectMenu } from '../src/views/sidebar';
import { appInProject, connection, connectionRoutes, fakeBackend, settingsView, unreachableServer } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OLD = 'http://127.0.0.1:1/v1';
const GOOD = 'http://127.0.0.1:8080/v1';
const LAPTOP_URL = 'http://192.168.1.20:1234/v1';
const model = (id: string): ModelInfo => ({ id, context_length: 32768, owned_by: null });

/**
 * An App on servers that behave as Maru's: the default one at `defaultUrl`, "Laptop" (its key
 * saved) that does not answer, and a model server answering at GOOD and LAPTOP_URL only.
 */
function appWithServers(language = 'en', defaultUrl = OLD) {
  const routes = connectionRoutes(
    [connection({ id: 1, name: '127.0.0.1:1', base_url: defaultUrl }), connection({ id: 2, name: 'Laptop', base_url: 'http://10.0.0.9:1234/v1', is_default: false, api_key_set: true })],
    (c) => {
      if (c.base_url === GOOD) return [model('qwen2.5-7b')];
      if (c.base_url === LAPTOP_URL) return [model('llama-3.1-8b'), model('phi-4')];
      throw unreachableServer(c);
    },
  );
  routes.keys.set(2, 'sk-laptop-secret');
  let server = settingsView({ endpoint_url: defaultUrl, language: language as 'en' | 'ko' });
  const { backend, calls } = fakeBackend({
    ...routes.methods,
    probeServers: async () => [],
    updateSettings: async (patch) => (server = { ...server, ...(patch as object) }),
  });
  const app = new App(backend);
  app.config.applySettings(server);
  const count = (method: string) => calls.filter((c) => c.method === method).length;
  const sent = (method: string) => calls.filter((c) => c.method === method).map((c) => c.args);
  return { app, calls, count, sent, routes };
}

const dialog = () => document.querySelector<HTMLDialogElement>('dialog.settings-dialog')!;
const row = (name: string) => dialog().querySelector<HTMLElement>(`[data-testid=server][data-name="${name}"]`)!;
const rowNames = () => [...dialog().querySelectorAll<HTMLElement>('[data-testid=server]')].map((r) => r.dataset.name);
const text = (el: Element | null, testid: string) => el?.querySelector(`[data-testid=${testid}]`)?.textContent ?? null;
const click = (el: Element | null, testid: string) => el!.querySelector<HTMLElement>(`[data-testid=${testid}]`)!.click();
function fill(el: Element, testid: string, value: string): void {
  const input = el.querySelector<HTMLInputElement>(`[data-testid=${testid}]`)!;
  input.value = value;
  input.dispatchEvent(new Event('input'));
}
/** Saves a server's form as Enter or its button does. */
const submit = (form: Element) => (form as HTMLFormElement).requestSubmit();

describe('settings: the model servers', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('lists the servers, the default first, each with its address, key, switch and what it answers, in English and Korean', async () => {
    const { app } = appWithServers('en', GOOD);
    openSettingsDialog(app, 'server');
    await sleep(10);
    expect(dialog().querySelector('[role=tab][aria-selected=true]')?.textContent, 'the tab is named for what it holds now').toBe('Servers');
    expect(rowNames(), 'the default server first: it is the one chats use').toEqual(['127.0.0.1:1', 'Laptop']);
    const main = row('127.0.0.1:1');
    expect(text(main, 'server-default')).toBe('Default');
    expect(text(main, 'server-url')).toBe(GOOD);
    expect(text(main, 'server-status'), 'how many models the server lists, at a glance').toBe('1 model');
    expect(text(main, 'server-models')).toBe('qwen2.5-7b');
    expect(main.querySelector<HTMLInputElement>('[data-testid=server-enabled]')!.disabled, 'the default server cannot be turned off').toBe(true);
    expect(main.querySelector('[data-testid=server-remove]'), 'nor removed: there is always a server to ask').toBeNull();
    const laptop = row('Laptop');
    expect(text(laptop, 'server-key-set'), 'a saved key shows as a badge, never as the key').toBe('Key');
    expect(text(laptop, 'server-status'), 'a server that is down says so in a word').toBe('Not answering');
    expect(text(laptop, 'server-error'), 'and in a sentence naming the server and its address').toBe('Laptop: Cannot reach the model server at http://10.0.0.9:1234/v1: connection refused');
    expect(dialog().innerHTML, 'the key is never in the page').not.toContain('sk-laptop-secret');

    document.body.replaceChildren();
    setLanguage('ko');
    openSettingsDialog(app, 'server');
    await sleep(10);
    expect(dialog().querySelector('[role=tab][aria-selected=true]')?.textContent).toBe('서버');
    expect(text(row('Laptop'), 'server-status')).toBe('응답 없음');
    expect(text(row('Laptop'), 'server-error'), 'Korean words for the code, the server named in front, no English left')
      .toBe('Laptop: 모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://10.0.0.9:1234/v1)');
    expect(text(row('127.0.0.1:1'), 'server-default')).toBe('기본');
    expect(text(row('127.0.0.1:1'), 'server-status')).toBe('모델 1개');
  });

  it('adds a server, named after its address unless named, and asks it for its models at once; the key is never shown', async () => {
    const { app, sent, routes } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    click(dialog(), 'add-server');
    const form = dialog().querySelector<HTMLElement>('[data-testid=server-form]')!;
    fill(form, 'server-address', LAPTOP_URL);
    expect(form.querySelector<HTMLInputElement>('[data-testid=server-name]')!.placeholder, 'the name it gets when left empty shows before it is saved').toBe('192.168.1.20:1234');
    fill(form, 'server-key', 'sk-new-secret');
    expect(form.querySelector<HTMLInputElement>('[data-testid=server-key]')!.type, 'a key is typed like a password').toBe('password');
    submit(form);
    await sleep(10);
    expect(sent('createConnection'), 'one request: name, address and key').toEqual([[{ name: '192.168.1.20:1234', base_url: LAPTOP_URL, api_key: 'sk-new-secret' }]]);
    expect(routes.keys.get(3)).toBe('sk-new-secret');
    expect(dialog().querySelector('[data-testid=server-form]'), 'the form closes once saved').toBeNull();
    const added = row('192.168.1.20:1234');
    expect(text(added, 'server-status'), 'the new server is asked for its models without another click').toBe('2 models');
    expect(text(added, 'server-key-set')).toBe('Key');
    expect(dialog().innerHTML, 'the key is never in the page').not.toContain('sk-new-secret');

    // A name already taken is refused, and the form says so and stays.
    click(dialog(), 'add-server');
    const again = dialog().querySelector<HTMLElement>('[data-testid=server-form]')!;
    fill(again, 'server-address', GOOD);
    fill(again, 'server-name', 'laptop');
    submit(again);
    await sleep(10);
    expect(text(again, 'server-form-error'), 'names tell servers apart in the model list').toBe('a server named "laptop" already exists');
    fill(again, 'server-address', 'localhost:8080');
    fill(again, 'server-name', 'Desk');
    submit(again);
    await sleep(10);
    expect(text(again, 'server-form-error'), 'an address a request could not go to is refused with why').toContain('must start with http:// or https://');
    setLanguage('ko');
    submit(again);
    await sleep(10);
    expect(text(again, 'server-form-error'), 'in Korean, by its code').toBe('모델 서버 주소가 올바르지 않습니다(localhost:8080). http:// 또는 https://로 시작하는 주소를 입력하세요.');
  });

  it('edits a key without ever showing it: kept when left empty, replaced when typed, removed when asked', async () => {
    const { app, sent, routes } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    const editLaptop = () => {
      click(row('Laptop'), 'server-edit');
      return row('Laptop').querySelector<HTMLElement>('[data-testid=server-form]')!;
    };
    let form = editLaptop();
    const key = form.querySelector<HTMLInputElement>('[data-testid=server-key]')!;
    expect(key.value, 'the saved key is not filled in').toBe('');
    expect(key.placeholder, 'dots say one is saved').toBe('••••••••');
    expect(form.textContent).toContain(t('serverKeyReplace'));
    fill(form, 'server-name', 'Old laptop');
    submit(form);
    await sleep(10);
    expect(sent('updateConnection').at(-1), 'a key left empty is kept: nothing about it is sent').toEqual([2, { name: 'Old laptop' }]);
    expect(routes.keys.get(2)).toBe('sk-laptop-secret');

    click(row('Old laptop'), 'server-edit');
    form = row('Old laptop').querySelector<HTMLElement>('[data-testid=server-form]')!;
    fill(form, 'server-key', 'sk-replaced');
    submit(form);
    await sleep(10);
    expect(sent('updateConnection').at(-1)).toEqual([2, { api_key: 'sk-replaced' }]);
    expect(routes.keys.get(2)).toBe('sk-replaced');

    click(row('Old laptop'), 'server-edit');
    form = row('Old laptop').querySelector<HTMLElement>('[data-testid=server-form]')!;
    form.querySelector<HTMLInputElement>('[data-testid=server-remove-key]')!.click();
    submit(form);
    await sleep(10);
    expect(sent('updateConnection').at(-1), 'removing the key sends null').toEqual([2, { api_key: null }]);
    expect(routes.keys.has(2)).toBe(false);
    expect(text(row('Old laptop'), 'server-key-set'), 'the badge goes with the key').toBeNull();
    expect(dialog().innerHTML).not.toMatch(/sk-laptop-secret|sk-replaced/);
  });

  it('asks a server for its models as soon as its new address is saved; the default one’s are the default model’s choices', async () => {
    const { app, sent } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    expect(text(row('127.0.0.1:1'), 'server-status')).toBe('Not answering');
    expect(text(dialog(), 'models-status'), 'the default model’s list says why it is empty').toContain('Cannot reach the model server at http://127.0.0.1:1/v1');
    click(row('127.0.0.1:1'), 'server-edit');
    const form = row('127.0.0.1:1').querySelector<HTMLElement>('[data-testid=server-form]')!;
    fill(form, 'server-address', GOOD);
    expect(form.querySelector<HTMLInputElement>('[data-testid=server-name]')!.value, 'a name that was its address follows the new address').toBe('127.0.0.1:8080');
    submit(form);
    await sleep(10);
    expect(sent('updateConnection')).toEqual([[1, { name: '127.0.0.1:8080', base_url: GOOD }]]);
    expect(text(row('127.0.0.1:8080'), 'server-status'), 'no other click: the new address is checked').toBe('1 model');
    expect(app.config.settings?.endpoint_url, 'the settings’ address is the default server’s').toBe(GOOD);
    expect(text(dialog(), 'models-status')).toBe('1 model at http://127.0.0.1:8080/v1');
    const options = [...dialog().querySelectorAll<HTMLOptionElement>('[data-testid=model-select] option')].map((o) => o.value);
    expect(options, 'the new address’s model is offered as the default model').toContain('qwen2.5-7b');
  });

  it('makes another server the default: it moves first, and the default model is chosen among its models', async () => {
    const { app, sent } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    click(row('Laptop'), 'server-edit');
    const form = row('Laptop').querySelector<HTMLElement>('[data-testid=server-form]')!;
    fill(form, 'server-address', LAPTOP_URL);
    submit(form);
    await sleep(10);
    click(row('Laptop'), 'server-make-default');
    await sleep(10);
    expect(sent('updateConnection').at(-1)).toEqual([2, { is_default: true }]);
    expect(rowNames()).toEqual(['Laptop', '127.0.0.1:1']);
    expect(text(row('Laptop'), 'server-default')).toBe('Default');
    expect(row('127.0.0.1:1').querySelector('[data-testid=server-remove]'), 'the server that was the default can be removed now').not.toBeNull();
    expect(app.config.settings?.endpoint_url).toBe(LAPTOP_URL);
    const label = [...dialog().querySelectorAll('.field-label')].map((l) => l.textContent).find((l) => l?.startsWith('Default model'));
    expect(label, 'the default model is the default server’s, and the label says which').toBe('Default model, on Laptop');
    const options = [...dialog().querySelectorAll<HTMLOptionElement>('[data-testid=model-select] option')].map((o) => o.value);
    expect(options).toEqual(expect.arrayContaining(['llama-3.1-8b', 'phi-4']));
  });

  it('says in the user’s language why the default server cannot be removed or turned off, when a stale list tries', async () => {
    for (const [lang, words] of [
      ['en', '"Laptop" is the default server and cannot be removed; make another one the default first'],
      ['ko', '“Laptop”은(는) 기본 서버라 끄거나 지울 수 없습니다. 먼저 다른 서버를 기본으로 정하세요.'],
    ]) {
      setLanguage(lang);
      const { app, routes } = appWithServers(lang);
      openSettingsDialog(app, 'server');
      await sleep(10);
      // Made the default in another window since the list was read.
      for (const c of routes.store) c.is_default = c.id === 2;
      click(row('Laptop'), 'server-remove');
      const confirm = document.querySelector<HTMLDialogElement>('dialog.dialog-confirm')!;
      expect(confirm.textContent, 'a removal asks first, and says what happens to its chats').toContain(t('removeServerBody'));
      confirm.querySelector<HTMLButtonElement>('.btn-danger')!.click();
      await sleep(10);
      expect(text(row('Laptop'), 'server-problem'), `${lang}: the refusal, in words, on the server`).toBe(words);
      expect(rowNames(), 'the list is read again: Laptop is the default now').toEqual(['Laptop', '127.0.0.1:1']);
      expect(row('Laptop').querySelector('[data-testid=server-remove]'), 'and is no longer offered for removal').toBeNull();
      document.body.replaceChildren();
    }
  });

  it('turns a server off and on, and removes one: its chats go back to the default server', async () => {
    const { app, sent, routes } = appWithServers();
    app.chat.session = { id: 5, project_id: 1, title: 'On the laptop', preset: null, model: 'phi-4', connection_id: 2, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
    openSettingsDialog(app, 'server');
    await sleep(10);
    row('Laptop').querySelector<HTMLInputElement>('[data-testid=server-enabled]')!.click();
    await sleep(10);
    expect(sent('updateConnection').at(-1)).toEqual([2, { enabled: false }]);
    expect(text(row('Laptop'), 'server-status'), 'off, and not asked for models').toBe('Off');
    row('Laptop').querySelector<HTMLInputElement>('[data-testid=server-enabled]')!.click();
    await sleep(10);
    expect(sent('updateConnection').at(-1)).toEqual([2, { enabled: true }]);
    click(row('Laptop'), 'server-remove');
    document.querySelector<HTMLDialogElement>('dialog.dialog-confirm')!.querySelector<HTMLButtonElement>('.btn-danger')!.click();
    await sleep(10);
    expect(sent('deleteConnection')).toEqual([[2]]);
    expect(rowNames()).toEqual(['127.0.0.1:1']);
    expect(routes.store.map((c: ConnectionView) => c.id)).toEqual([1]);
    expect(app.chat.session?.connection_id, 'the open chat is on the default server again, as the server moved it').toBeNull();
    expect(app.chat.session?.model).toBeNull();
  });

  it('labels the default model list’s button, with a tooltip, in both languages', () => {
    for (const [lang, label, tip] of [['en', 'Refresh list', 'Check the server and list its models'], ['ko', '목록 새로 고침', '서버를 확인하고 모델 목록 가져오기']]) {
      setLanguage(lang);
      const { app } = appWithServers(lang);
      openSettingsDialog(app, 'server');
      const button = dialog().querySelector<HTMLButtonElement>('[data-testid=check-server]')!;
      expect(button.textContent?.trim(), `${lang}: the button says what it does`).toBe(label);
      expect(button.title).toBe(tip);
      document.body.replaceChildren();
    }
  });
});

describe('settings: every field saves itself', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => {
    document.body.replaceChildren();
  });

  const tabButton = (tab: string) => dialog().querySelector<HTMLElement>(`[role=tab][data-tab=${tab}]`)!;
  const input = (label: string) => [...dialog().querySelectorAll('label.field')].find((l) => l.querySelector('.field-label')?.textContent === label)!.querySelector('input')!;

  it('change a sampling field, switch tab, close: the change was sent, with no Save button to forget', async () => {
    const { app, sent } = appWithServers();
    openSettingsDialog(app, 'server');
    expect(dialog().querySelector('[data-testid=save-settings]'), 'no Save button: nothing waits for one').toBeNull();
    const temperature = input('Temperature');
    temperature.value = '0.3';
    temperature.dispatchEvent(new Event('input', { bubbles: true }));
    tabButton('appearance').click();
    dialog().querySelector<HTMLElement>('[data-testid=close-settings]')!.click();
    await sleep(10);
    expect(sent('updateSettings'), 'typed, then the tab switched and the dialog closed before the pause: the change is sent once').toEqual([[{ temperature: 0.3 }]]);
    expect(app.config.settings?.temperature, 'and kept').toBe(0.3);
  });

  it('a choice saves at once, typing once it pauses; clearing the instructions offers Undo', async () => {
    const { app, sent } = appWithServers();
    await app.config.saveSettings({ custom_instructions: 'Answer in Korean.' });
    openSettingsDialog(app, 'appearance');
    const theme = dialog().querySelector<HTMLSelectElement>('select[name=theme]')!;
    theme.value = 'dark';
    theme.dispatchEvent(new Event('change', { bubbles: true }));
    await sleep(10);
    expect(sent('updateSettings').at(-1), 'a choice is saved as it is made, the dialog still open').toEqual([{ theme: 'dark' }]);
    tabButton('instructions').click();
    const instructions = dialog().querySelector<HTMLTextAreaElement>('[data-testid=custom-instructions]')!;
    instructions.value = '';
    instructions.dispatchEvent(new Event('input', { bubbles: true }));
    await sleep(900);
    expect(sent('updateSettings').at(-1), 'typing is saved once it pauses').toEqual([{ custom_instructions: '' }]);
    const undo = [...document.querySelectorAll<HTMLElement>('[data-testid=toast] button')].find((b) => b.textContent === 'Undo');
    expect(undo, 'clearing the instructions can be undone').toBeTruthy();
    undo!.click();
    await sleep(10);
    expect(app.config.settings?.custom_instructions, 'Undo brings them back').toBe('Answer in Korean.');
    expect(instructions.value, 'in the open dialog too').toBe('Answer in Korean.');
  });
});

describe('settings: the words of hints and tooltips', () => {
  afterEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('no string points at a numbered section (①–⑤, “section 3”, 섹션): places are said in words', () => {
    for (const [lang, dict] of Object.entries(dicts)) {
      const numbered = Object.entries(dict).filter(([, v]) => /[①-⑩]|\bsections?\b|섹션/i.test(v));
      expect(numbered, `${lang}: strings that name a section by its number`).toEqual([]);
    }
  });

  it('the Default project’s “Edit instructions” tooltip names the settings tab as the dialog calls it', () => {
    const project: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
    for (const lang of ['en', 'ko']) {
      setLanguage(lang);
      const { app } = appInProject({ listModels: async () => [], probeServers: async () => [] }, project);
      const item = projectMenu(app, app.sessions.projects[0]).find((i) => i.label === t('editInstructions'))!;
      openSettingsDialog(app, 'instructions');
      const tab = dialog().querySelector<HTMLElement>('[role=tab][aria-selected=true]')!.textContent!;
      const settingsTitle = dialog().querySelector('h2')!.textContent!;
      expect(item.title, `${lang}: the tooltip leads to the tab that holds the custom instructions`).toContain(`${settingsTitle} → ${tab}`);
      document.body.replaceChildren();
    }
  });
});
