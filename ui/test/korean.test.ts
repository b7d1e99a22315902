// Korean users: the UI's language follows the browser until the user chooses one, and the app is
// named 마루 in every Korean sentence.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { SettingsPatch } from '../src/backend/types';
import { ERRORS, PARAM_WORDS } from '../src/lib/errors';
import { browserLanguage, chosenLanguage, dicts, language, setLanguage, startLanguage, t, uiLanguage } from '../src/lib/i18n';
import { BUILTIN_PRESETS } from '../src/lib/presets';
import { REASONS } from '../src/lib/reasons';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { fakeBackend, settingsView } from './fakeBackend';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The browser prefers `langs` (navigator.languages, and navigator.language the first). */
function browserPrefers(...langs: string[]): void {
  Object.defineProperty(navigator, 'languages', { configurable: true, get: () => langs });
  Object.defineProperty(navigator, 'language', { configurable: true, get: () => langs[0] ?? '' });
}

/** An App whose server keeps the settings it is sent (language "en", the default, at first). */
function appWithServer() {
  let server = settingsView();
  const { backend, calls } = fakeBackend({
    listModels: async () => [],
    probeServers: async () => [],
    updateSettings: async (patch: SettingsPatch) => {
      server = { ...server, ...(patch as object), language: patch.language ?? server.language };
      return server;
    },
  });
  const app = new App(backend);
  const patches = () => calls.filter((c) => c.method === 'updateSettings').map((c) => c.args[0]);
  return { app, patches, server: () => server };
}

describe('the UI language on first run and after a choice', () => {
  beforeEach(() => {
    localStorage.clear();
    setLanguage('en');
  });
  afterEach(() => {
    // The own properties go; navigator's own getters come back.
    delete (navigator as unknown as Record<string, unknown>).languages;
    delete (navigator as unknown as Record<string, unknown>).language;
    localStorage.clear();
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('reads the browser’s first language the UI has, by its primary subtag', () => {
    expect(browserLanguage(['ko-KR', 'en-US'])).toBe('ko');
    expect(browserLanguage(['ko'])).toBe('ko');
    expect(browserLanguage(['ja-JP', 'ko-KR', 'en'])).toBe('ko');
    expect(browserLanguage(['en-US', 'ko-KR'])).toBe('en');
    expect(browserLanguage(['fr-FR', 'de'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  it('a Korean browser on first run (the server holds its default "en", nothing chosen) gets Korean', () => {
    browserPrefers('ko-KR', 'ko', 'en-US');
    const { app } = appWithServer();
    expect(startLanguage()).toBe('ko');
    app.config.applySettings(settingsView({ language: 'en' }));
    expect(language()).toBe('ko');
    expect(document.documentElement.lang).toBe('ko');
    expect(t('newChat')).toBe('새 대화');
    expect(chosenLanguage()).toBeNull();
  });

  it('an English browser on first run gets English', () => {
    browserPrefers('en-US', 'en');
    const { app } = appWithServer();
    app.config.applySettings(settingsView({ language: 'en' }));
    expect(language()).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });

  it('a language set on the server (not the default) wins over the browser', () => {
    browserPrefers('en-US');
    expect(uiLanguage('ko', null, ['en-US'])).toBe('ko');
    const { app } = appWithServer();
    app.config.applySettings(settingsView({ language: 'ko' }));
    expect(language()).toBe('ko');
  });

  it('an explicit choice of English in the settings dialog wins over a Korean browser, and stays', async () => {
    browserPrefers('ko-KR', 'ko');
    const { app, patches } = appWithServer();
    app.config.applySettings(settingsView());
    expect(language()).toBe('ko');

    // The dialog shows the language the UI shows; closing it unchanged is no choice and sends none.
    openSettingsDialog(app, 'appearance');
    let dialog = document.querySelector('dialog')!;
    let select = dialog.querySelector<HTMLSelectElement>('select[name=language]')!;
    expect(select.value).toBe('ko');
    dialog.querySelector<HTMLElement>('[data-testid=close-settings]')!.click();
    await sleep(10);
    expect(patches()).toEqual([]);
    expect(chosenLanguage()).toBeNull();
    document.body.replaceChildren();

    // Choosing English: sent (although the server already holds "en"), noted, and shown.
    openSettingsDialog(app, 'appearance');
    dialog = document.querySelector('dialog')!;
    select = dialog.querySelector<HTMLSelectElement>('select[name=language]')!;
    select.value = 'en';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await sleep(10);
    expect(patches()).toEqual([{ language: 'en' }]);
    expect(chosenLanguage()).toBe('en');
    expect(language()).toBe('en');
    expect(document.documentElement.lang).toBe('en');

    // The next start in the same Korean browser: still English, before and after the settings.
    setLanguage('ko');
    expect(startLanguage()).toBe('en');
    const next = appWithServer().app;
    next.config.applySettings(settingsView({ language: 'en' }));
    expect(language()).toBe('en');
  });

  it('an explicit choice of Korean in an English browser is saved on the server and shown', async () => {
    browserPrefers('en-US');
    const { app, patches, server } = appWithServer();
    app.config.applySettings(settingsView());
    expect(language()).toBe('en');
    expect(await app.config.saveSettings({ language: 'ko' })).toBe(true);
    expect(patches()).toEqual([{ language: 'ko' }]);
    expect(server().language).toBe('ko');
    expect(chosenLanguage()).toBe('ko');
    expect(language()).toBe('ko');
  });
});

describe('the app’s name in Korean', () => {
  /** Every Korean sentence of the UI's tables, with where it is. */
  function koreanStrings(): [string, string][] {
    const out: [string, string][] = [];
    for (const [key, s] of Object.entries(dicts.ko)) out.push([`i18n ${key}`, s]);
    for (const [code, w] of Object.entries(ERRORS)) {
      out.push([`error ${code}`, w.ko]);
      if (w.named) out.push([`error ${code} (named)`, w.named]);
    }
    for (const [param, values] of Object.entries(PARAM_WORDS)) for (const [v, w] of Object.entries(values)) out.push([`param ${param}=${v}`, w.ko]);
    for (const [code, w] of Object.entries(REASONS)) out.push([`reason ${code}`, w.ko]);
    for (const [key, p] of Object.entries(BUILTIN_PRESETS)) out.push([`preset ${key}`, `${p.ko.name} ${p.ko.description}`]);
    return out;
  }

  it('is 마루, never the Latin “Maru”, in every Korean string', () => {
    const strings = koreanStrings();
    expect(strings.length).toBeGreaterThan(400);
    expect(strings.filter(([, s]) => s.includes('마루')).length).toBeGreaterThan(10);
    // (The command `maru serve` keeps its name: it is typed as is.)
    expect(strings.filter(([, s]) => /Maru/.test(s))).toEqual([]);
  });

  it('English keeps “Maru”', () => {
    expect(dicts.en.appName).toBe('Maru');
    expect(dicts.ko.appName).toBe('마루');
    expect(ERRORS.offline.en).toContain('Maru');
    expect(ERRORS.offline.ko).toBe('마루에 연결할 수 없습니다. 마루가 실행 중인지 확인하세요.');
  });
});
