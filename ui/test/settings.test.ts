// The settings a user meets: a new model server address is checked at once (no hunting for a
// button; the answer about the old address does not linger), the model list's button says what it
// does, the hints say in words where things go in the system prompt, and the Default project's
// tooltip names the settings tab as the tab is called. In English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ModelInfo, Project, SettingsPatch } from '../src/backend/types';
import { dicts, setLanguage, t } from '../src/lib/i18n';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { projectMenu } from '../src/views/sidebar';
import { appInProject, fakeBackend, settingsView } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OLD = 'http://127.0.0.1:1/v1';
const GOOD = 'http://127.0.0.1:8080/v1';

/** An App whose model server answers at GOOD only, and whose settings keep what they are sent. */
function appWithServers(language = 'en') {
  let server = settingsView({ endpoint_url: OLD, language: language as 'en' | 'ko' });
  const { backend, calls } = fakeBackend({
    listModels: async (): Promise<ModelInfo[]> => {
      if (server.endpoint_url !== GOOD) throw new Error(`nothing answers at ${server.endpoint_url}`);
      return [{ id: 'qwen2.5-7b', context_length: 32768 } as ModelInfo];
    },
    probeServers: async () => [],
    updateSettings: async (patch: SettingsPatch) => {
      server = { ...server, ...(patch as object) };
      return server;
    },
  });
  const app = new App(backend);
  app.config.applySettings(server);
  const count = (method: string) => calls.filter((c) => c.method === method).length;
  return { app, calls, count };
}

const dialog = () => document.querySelector('dialog')!;
const status = () => dialog().querySelector<HTMLElement>('[data-testid=models-status]')!;

describe('settings: the model server', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => document.body.replaceChildren());

  it('checks a new address as soon as the user leaves the field, without Save or the refresh button', async () => {
    const { app, calls, count } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    expect(status().textContent).toContain('nothing answers at http://127.0.0.1:1/v1');
    expect(status().classList.contains('field-error')).toBe(true);

    const endpoint = dialog().querySelector<HTMLInputElement>('[data-testid=endpoint-url]')!;
    endpoint.value = GOOD;
    endpoint.dispatchEvent(new Event('input'));
    expect(status().textContent, 'the error about the old address goes while the new one is typed').toBe(t('modelsAddressEdited'));
    expect(status().classList.contains('field-error')).toBe(false);
    expect(count('updateSettings'), 'nothing is saved while typing').toBe(0);

    // Typed back to the address already checked, and on again: what that one answered shows meanwhile.
    endpoint.value = OLD;
    endpoint.dispatchEvent(new Event('input'));
    await sleep(10);
    expect(status().textContent).toContain('nothing answers at http://127.0.0.1:1/v1');
    endpoint.value = GOOD;
    endpoint.dispatchEvent(new Event('input'));

    endpoint.dispatchEvent(new Event('change'));
    await sleep(10);
    expect(calls.find((c) => c.method === 'updateSettings')?.args[0], 'the address is saved, the models come from there').toEqual({ endpoint_url: GOOD });
    expect(status().textContent).toBe('1 model at http://127.0.0.1:8080/v1');
    const options = [...dialog().querySelectorAll<HTMLOptionElement>('[data-testid=model-select] option')].map((o) => o.value);
    expect(options, 'the new server’s model is offered').toContain('qwen2.5-7b');

    // Leaving the field again with the same address asks nothing more.
    const lists = count('listModels');
    endpoint.dispatchEvent(new Event('change'));
    await sleep(10);
    expect(count('listModels')).toBe(lists);
  });

  it('checks on Enter too, once', async () => {
    const { app, count } = appWithServers();
    openSettingsDialog(app, 'server');
    await sleep(10);
    const endpoint = dialog().querySelector<HTMLInputElement>('[data-testid=endpoint-url]')!;
    endpoint.value = GOOD;
    endpoint.dispatchEvent(new Event('input'));
    const enter = new KeyboardEvent('keydown', { key: 'Enter', cancelable: true });
    endpoint.dispatchEvent(enter);
    expect(enter.defaultPrevented, 'Enter checks the address and does nothing else').toBe(true);
    await sleep(10);
    expect(status().textContent).toBe('1 model at http://127.0.0.1:8080/v1');
    endpoint.dispatchEvent(new Event('change')); // the blur after Enter
    await sleep(10);
    expect(count('updateSettings')).toBe(1);
    expect(count('listModels'), 'once at opening, once for the new address').toBe(2);
  });

  it('labels the model list’s button, with a tooltip, in both languages', () => {
    for (const [lang, label, tip] of [['en', 'Refresh list', 'Check the server and list its models'], ['ko', '목록 새로 고침', '서버를 확인하고 모델 목록 가져오기']]) {
      const { app } = appWithServers(lang);
      openSettingsDialog(app, 'server');
      const button = dialog().querySelector<HTMLButtonElement>('[data-testid=check-server]')!;
      expect(button.textContent?.trim(), `${lang}: the button says what it does`).toBe(label);
      expect(button.title).toBe(tip);
      document.body.replaceChildren();
    }
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
    const project: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, session_count: 0, created_at: 0, updated_at: 0 };
    for (const lang of ['en', 'ko']) {
      setLanguage(lang);
      const { app } = appInProject({ listModels: async () => [], probeServers: async () => [] }, project);
      const item = projectMenu(app, app.projects[0]).find((i) => i.label === t('editInstructions'))!;
      openSettingsDialog(app, 'instructions');
      const tab = dialog().querySelector<HTMLElement>('[role=tab][aria-selected=true]')!.textContent!;
      const settingsTitle = dialog().querySelector('h2')!.textContent!;
      expect(item.title, `${lang}: the tooltip leads to the tab that holds the custom instructions`).toContain(`${settingsTitle} → ${tab}`);
      document.body.replaceChildren();
    }
  });
});
