// Settings: the model servers (each one's address and key, saved as they are changed; the default
// model, sampling, timeouts), custom instructions (section ②),
// the user's presets, memory (whether the model may save facts, and whether they wait for review),
// the user's tool servers (Tools), what other apps may use (Share with other apps, sharingPane.ts),
// appearance (theme, language), and the Data tab (back up,
// restore, import a chat). Every field saves itself as it is changed (a choice at once, typing
// once it pauses, what waits when the dialog closes); only what changed is sent. Presets, tool
// servers and skills (skillsPane.ts) are saved as they are changed too.

import type { App } from '../app';
import { SETTING_BOUNDS, type Bounds } from '../backend/generated/setting-bounds';
import type { Language, MemoryMode, ModelInfo, SettingsPatch, SettingsView, Theme } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { count } from '../lib/format';
import { language as shownLanguage, t, type Key } from '../lib/i18n';
import { openDialog } from './dialog';
import { searchModelsPatch, searchModelsSection, type SearchModels } from './hybridSearch';
import { dataPane } from './dataPane';
import { mountPresetEditor } from './presetEditor';
import { mountServers } from './servers';
import { SHOWN, sharingPane } from './sharingPane';
import { mountSkillsPane } from './skillsPane';
import { toast } from './toast';
import { mountToolServers } from './toolServers';

export type Tab = 'server' | 'instructions' | 'presets' | 'memory' | 'tools' | 'skills' | 'sharing' | 'appearance' | 'data';

/** The memory modes as offered, each with its one-line explanation. */
const MEMORY_MODES: { mode: MemoryMode; label: Key; hint: Key }[] = [
  { mode: 'off', label: 'memoryModeOff', hint: 'memoryModeOffHint' },
  { mode: 'review', label: 'memoryModeReview', hint: 'memoryModeReviewHint' },
  { mode: 'auto', label: 'memoryModeAuto', hint: 'memoryModeAutoHint' },
];

const CUSTOM_MODEL = '\u0000custom';

export function openSettingsDialog(app: App, tab: Tab = 'server'): void {
  const s = app.config.settings;
  if (!s) {
    toast(t('offlineBody'), 'error');
    return;
  }
  const fields = settingsFields(s);
  const model = defaultModelField(app, s);
  const search = searchModelsSection(app, s);
  const panes = settingsPanes(app, fields, model, search.node, () => handle.close());
  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const showTab = (which: Tab) => {
    for (const [k, pane] of Object.entries(panes)) pane.hidden = k !== which;
    panes[which].dispatchEvent(new Event(SHOWN));
    for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-selected', String(b.dataset.tab === which));
  };
  const labels: Record<Tab, string> = {
    server: t('settingsServer'), instructions: t('settingsInstructions'), presets: t('settingsPresets'), memory: t('settingsMemory'), tools: t('settingsTools'),
    skills: t('settingsSkills'), sharing: t('settingsSharing'), appearance: t('settingsAppearance'), data: t('settingsData'),
  };
  for (const k of Object.keys(panes) as Tab[]) {
    tabs.appendChild(h('button', { class: 'tab', type: 'button', role: 'tab', dataset: { tab: k }, onClick: () => showTab(k) }, labels[k]));
  }

  const status = h('span', { class: 'save-status muted', 'data-testid': 'settings-status', 'aria-live': 'polite' });
  const saver = autosave(app, s, fields, model, status, search.models);
  const body = h('div', { class: 'settings' }, tabs, Object.values(panes));
  body.addEventListener('change', () => void saver.now());
  body.addEventListener('input', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) saver.soon();
  });
  const handle = openDialog({
    title: t('settings'),
    wide: true,
    className: 'settings-dialog',
    body,
    footer: [status, h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'close-settings', onClick: () => handle.close() }, t('done'))],
    // What waits for a pause in typing is sent as the dialog closes.
    onClose: () => void saver.now(),
  });
  showTab(tab);
}

/** The form's fields, filled from the settings. */
function settingsFields(s: SettingsView) {
  // Bounds come from the server's one declaration (store::settings::BOUNDS), generated.
  const b = SETTING_BOUNDS;
  const instructions = h('textarea', { class: 'input textarea', rows: 12, placeholder: t('customInstructionsPlaceholder'), 'data-testid': 'custom-instructions' });
  instructions.value = s.custom_instructions;
  const theme = h('select', { class: 'input', name: 'theme' },
    (['system', 'light', 'dark'] as Theme[]).map((v) => h('option', { value: v }, t(v === 'system' ? 'themeSystem' : v === 'light' ? 'themeLight' : 'themeDark'))));
  theme.value = s.theme;
  const language = h('select', { class: 'input', name: 'language' }, h('option', { value: 'en' }, 'English'), h('option', { value: 'ko' }, '한국어'));
  // The language the UI shows, which may be the browser's rather than the setting's (see
  // `uiLanguage` in lib/i18n/index.ts): the user changing it is their choice, and is sent.
  let languageShown: string = shownLanguage();
  language.value = languageShown;
  const memoryModes = MEMORY_MODES.map(({ mode, label, hint }) => {
    const radio = h('input', { type: 'radio', name: 'memory_mode', value: mode, 'data-testid': `memory-mode-${mode}` });
    radio.checked = s.memory_mode === mode;
    return { radio, node: h('label', { class: 'choice' }, radio, h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t(label), mode === 'review' ? h('span', { class: 'badge' }, t('defaultChoice')) : null), h('span', { class: 'field-hint' }, t(hint)))) };
  });
  return {
    contextLength: numberInput(s.context_length, { ...b.context_length, step: 256 }),
    temperature: numberInput(s.temperature, { ...b.temperature, step: 0.05 }),
    topP: numberInput(s.top_p, { ...b.top_p, step: 0.01 }),
    maxTokens: numberInput(s.max_tokens, { ...b.max_tokens, step: 1 }),
    firstByteTimeout: numberInput(s.first_byte_timeout_secs, { ...b.first_byte_timeout_secs, step: 1 }, t('timeoutDefault')),
    idleTimeout: numberInput(s.idle_timeout_secs, { ...b.idle_timeout_secs, step: 1 }, t('timeoutDefault')),
    toolCallTimeout: numberInput(s.tool_call_timeout_secs, { ...b.tool_call_timeout_secs, step: 1 }, t('timeoutDefault')),
    attachmentMax: numberInput(s.attachment_max_mb, { ...b.attachment_max_mb, step: 1 }, t('timeoutDefault')),
    attachmentTextMax: numberInput(s.attachment_text_max_chars, { ...b.attachment_text_max_chars, step: 10000 }, t('timeoutDefault')),
    promptBudget: numberInput(s.prompt_budget_chars, { ...b.prompt_budget_chars, step: 1000 }, t('timeoutDefault')),
    memoryBudget: numberInput(s.memory_budget_chars, { ...b.memory_budget_chars, step: 500 }, t('timeoutDefault')),
    toolOutputInline: numberInput(s.tool_output_inline_tokens, { ...b.tool_output_inline_tokens, step: 100 }, t('timeoutDefault')),
    toolSchemaBudget: numberInput(s.tool_schema_budget_tokens, { ...b.tool_schema_budget_tokens, step: 1000 }, t('timeoutDefault')),
    instructions,
    theme,
    language,
    get languageShown() {
      return languageShown;
    },
    set languageShown(v: string) {
      languageShown = v;
    },
    memoryModes,
    memoryMode: (): MemoryMode => (memoryModes.find((m) => m.radio.checked)?.radio.value as MemoryMode | undefined) ?? 'review',
  };
}

type Fields = ReturnType<typeof settingsFields>;

/** What the form would change: the fields that differ from the settings as they are now, and the
 *  language only when the user changed it. */
function formPatch(app: App, s: SettingsView, f: Fields, model: string): SettingsPatch {
  const patch = diff(s, {
    model,
    temperature: numberValue(f.temperature),
    top_p: numberValue(f.topP),
    max_tokens: numberValue(f.maxTokens),
    context_length: numberValue(f.contextLength),
    first_byte_timeout_secs: numberValue(f.firstByteTimeout),
    idle_timeout_secs: numberValue(f.idleTimeout),
    tool_call_timeout_secs: numberValue(f.toolCallTimeout),
    attachment_max_mb: numberValue(f.attachmentMax),
    attachment_text_max_chars: numberValue(f.attachmentTextMax),
    prompt_budget_chars: numberValue(f.promptBudget),
    memory_budget_chars: numberValue(f.memoryBudget),
    tool_output_inline_tokens: numberValue(f.toolOutputInline),
    tool_schema_budget_tokens: numberValue(f.toolSchemaBudget),
    custom_instructions: f.instructions.value,
    memory_mode: f.memoryMode(),
    theme: f.theme.value as Theme,
  }, app.config.settings);
  if (f.language.value !== f.languageShown) patch.language = f.language.value as Language;
  return patch;
}

/** How long typing pauses before what was typed is saved. */
const TYPING_PAUSE_MS = 700;

/** Saves the form's changes one request after another: `now` (a choice made, a field left, the
 *  dialog closed) or `soon` (typing, once it pauses). Clearing the instructions offers Undo. */
function autosave(app: App, s: SettingsView, f: Fields, model: ModelField, status: HTMLElement, search: SearchModels) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  const save = async () => {
    const before = app.config.settings ?? s;
    const patch = formPatch(app, s, f, model.current());
    Object.assign(patch, searchModelsPatch(search, before));
    if (Object.keys(patch).length === 0) return;
    status.textContent = t('saving');
    const ok = await app.config.saveSettings(patch);
    status.textContent = ok ? t('savedShort') : '';
    if (!ok) return;
    if (patch.language) f.languageShown = patch.language;
    if (patch.custom_instructions === '' && before.custom_instructions !== '') {
      const text = before.custom_instructions;
      toast(t('instructionsCleared'), 'info', { action: { label: t('undo'), run: () => void app.config.saveSettings({ custom_instructions: text }).then((back) => {
        if (back && f.instructions.isConnected) f.instructions.value = text;
      }) } });
    }
  };
  const now = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    chain = chain.then(save);
    return chain;
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void now(), TYPING_PAUSE_MS);
  };
  return { now, soon };
}

/** The default model: among what the default server lists (the servers pane asks them), or a
 *  name typed; drawn again as the list comes, the choice kept. */
function defaultModelField(app: App, s: SettingsView) {
  const select = h('select', { class: 'input', name: 'model', 'data-testid': 'model-select' });
  const text = h('input', { class: 'input', type: 'text', value: s.model, placeholder: t('modelName'), spellcheck: 'false' });
  const status = h('div', { class: 'field-hint', 'data-testid': 'models-status', 'aria-live': 'polite' });
  const label = h('span', { class: 'field-label' });
  const defaultModels = (): ModelInfo[] => {
    const d = app.servers.defaultConnection();
    return (d && app.servers.modelLists.get(d.id)?.models) || [];
  };
  const fill = (selected: string) => {
    const models = defaultModels();
    const known = models.some((m) => m.id === selected);
    replaceChildren(select,
      h('option', { value: '' }, t('modelFirst')),
      models.map((m) => h('option', { value: m.id }, m.context_length ? `${m.id}  (${t('modelContext', { n: count(m.context_length) })})` : m.id)),
      h('option', { value: CUSTOM_MODEL }, t('modelCustom')),
    );
    select.value = selected === '' ? '' : known ? selected : CUSTOM_MODEL;
    text.value = selected;
    text.hidden = select.value !== CUSTOM_MODEL;
  };
  select.addEventListener('change', () => {
    text.hidden = select.value !== CUSTOM_MODEL;
    if (select.value !== CUSTOM_MODEL) text.value = select.value;
    else text.focus();
  });
  const current = () => (select.value === CUSTOM_MODEL || select.options.length === 0 ? text.value.trim() : select.value);
  let shownModels = '';
  /** The default server's name and answer. */
  const show = () => {
    const d = app.servers.defaultConnection();
    label.textContent = d ? t('defaultModelOn', { server: d.name }) : t('model');
    const list = d && app.servers.modelLists.get(d.id);
    const listed = defaultModels().map((m) => m.id).join('\n');
    if (listed !== shownModels) {
      shownModels = listed;
      fill(current());
    }
    status.className = list?.error ? 'field-hint field-error' : 'field-hint';
    status.textContent = !d || !list || (list.asking && !list.models) ? t('modelsLoading')
      : list.error ? t('modelsFailed', { error: app.servers.serverError(list.error) })
      : t('modelsFound', { n: list.models?.length ?? 0, url: d.base_url });
  };
  fill(s.model);
  const off = app.on('servers', () => {
    if (select.isConnected) show();
    else off();
  });
  show();
  return { select, text, status, label, current };
}

type ModelField = ReturnType<typeof defaultModelField>;

/** Every tab's pane; the presets, tools, skills and servers panes are mounted into theirs. */
function settingsPanes(app: App, f: Fields, model: ModelField, search: HTMLElement, close: () => void): Record<Tab, HTMLElement> {
  const serversPane = h('div', { class: 'servers-pane', 'data-testid': 'servers-pane' });
  const panes: Record<Tab, HTMLElement> = {
    server: serverPane(app, f, model, serversPane, search),
    instructions: h('div', { class: 'pane form' }, field(t('customInstructions'), f.instructions, t('customInstructionsHint'))),
    presets: h('div', { class: 'pane' }),
    memory: memoryPane(app, f, close),
    tools: h('div', { class: 'pane tool-servers-pane', 'data-testid': 'tools-pane' }),
    skills: h('div', { class: 'pane skills-pane', 'data-testid': 'skills-pane' }),
    sharing: sharingPane(app),
    appearance: h('div', { class: 'pane form' }, field(t('theme'), f.theme), field(t('language'), f.language)),
    data: dataPane(app, close),
  };
  mountPresetEditor(app, panes.presets);
  mountToolServers(app, panes.tools);
  mountServers(app, serversPane);
  mountSkillsPane(app, panes.skills);
  return panes;
}

/** The Server tab: the servers, the default model, sampling, timeouts, files. */
function serverPane(app: App, f: Fields, model: ModelField, serversPane: HTMLElement, search: HTMLElement): HTMLElement {
  return h('div', { class: 'pane form' },
    serversPane,
    h('label', { class: 'field' }, model.label,
      h('div', { class: 'row' }, model.select, h('button', {
        class: 'btn', type: 'button', title: t('checkServer'), 'data-testid': 'check-server',
        onClick: () => {
          const d = app.servers.defaultConnection();
          if (d) void app.servers.loadModelList(d.id);
        },
      }, icon('refresh'), t('refreshModels'))),
      model.text, model.status, h('span', { class: 'field-hint' }, t('defaultModelHint'))),
    h('fieldset', { class: 'grid' },
      h('legend', null, t('sampling')),
      field(t('temperature'), f.temperature, '0 – 2'),
      field(t('topP'), f.topP, '0 – 1'),
      field(t('maxTokens'), f.maxTokens),
      field(t('contextLength'), f.contextLength, t('contextLengthHint')),
    ),
    h('fieldset', { class: 'grid' },
      h('legend', null, t('timeouts')),
      field(t('firstByteTimeout'), f.firstByteTimeout, t('firstByteTimeoutHint', range(SETTING_BOUNDS.first_byte_timeout_secs))),
      field(t('idleTimeout'), f.idleTimeout, t('idleTimeoutHint', range(SETTING_BOUNDS.idle_timeout_secs))),
      field(t('toolCallTimeout'), f.toolCallTimeout, t('toolCallTimeoutHint')),
    ),
    h('fieldset', { class: 'grid' },
      h('legend', null, t('filesSettings')),
      field(t('attachmentMaxMb'), f.attachmentMax, t('attachmentMaxMbHint', range(SETTING_BOUNDS.attachment_max_mb))),
      field(t('attachmentTextMaxChars'), f.attachmentTextMax, t('attachmentTextMaxCharsHint', range(SETTING_BOUNDS.attachment_text_max_chars))),
      field(t('toolOutputInlineTokens'), f.toolOutputInline, t('toolOutputInlineTokensHint')),
      field(t('toolSchemaBudget'), f.toolSchemaBudget, t('toolSchemaBudgetHint', range(SETTING_BOUNDS.tool_schema_budget_tokens))),
    ),
    search,
  );
}

/** The Memory tab: the mode, the budgets, and the way to the memory panel. */
function memoryPane(app: App, f: Fields, close: () => void): HTMLElement {
  return h('div', { class: 'pane form' },
    h('fieldset', { class: 'choices', 'data-testid': 'memory-mode' },
      h('legend', null, t('memoryMode')),
      h('p', { class: 'hint' }, t('memoryModeHint')),
      f.memoryModes.map((m) => m.node),
    ),
    field(t('memoryBudget'), f.memoryBudget, t('memoryBudgetHint')),
    field(t('promptBudget'), f.promptBudget, t('promptBudgetHint')),
    h('button', {
      class: 'btn btn-ghost', type: 'button',
      onClick: () => {
        close();
        if (app.panels.panel !== 'memory') app.panels.togglePanel('memory');
      },
    }, icon('brain'), t('manageMemory')),
  );
}

function field(label: string, control: HTMLElement, hint?: string | null, ...extra: (HTMLElement | null)[]): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, ...extra, hint ? h('span', { class: 'field-hint' }, hint) : null);
}

function numberInput(value: number | null, attrs: { min?: number; max?: number; step?: number }, placeholder = t('serverDefault')): HTMLInputElement {
  return h('input', { class: 'input', type: 'number', inputmode: 'decimal', value: value == null ? '' : String(Number(value.toFixed(4))), placeholder, ...attrs });
}

function numberValue(input: HTMLInputElement): number | null {
  const v = input.value.trim();
  if (v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** What the form holds: the settings less the default server's address and key (the servers
 *  pane saves those as they are changed), and a number field left empty is `null` (the
 *  default). The language is sent on its own: only when the user changed it (see the save). */
type Editable = Omit<SettingsView, 'endpoint_url' | 'api_key_set' | 'language' | 'embeddings' | 'reranker' | 'sharing' | 'first_byte_timeout_secs' | 'idle_timeout_secs' | 'attachment_max_mb' | 'attachment_text_max_chars' | 'prompt_budget_chars' | 'memory_budget_chars' | 'tool_output_inline_tokens' | 'tool_schema_budget_tokens' | 'tool_call_timeout_secs'> & {
  tool_call_timeout_secs: number | null;
  tool_output_inline_tokens: number | null;
  tool_schema_budget_tokens: number | null;
  prompt_budget_chars: number | null;
  memory_budget_chars: number | null;
  first_byte_timeout_secs: number | null;
  idle_timeout_secs: number | null;
  attachment_max_mb: number | null;
  attachment_text_max_chars: number | null;
};

/** The fields that differ from what the server has now (it may have changed while open). */
function diff(initial: SettingsView, next: Editable, now: SettingsView | null): SettingsPatch {
  const base = now ?? initial;
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next) as [keyof Editable, unknown][]) {
    const cur = base[k];
    const same = typeof v === 'number' && typeof cur === 'number' ? Math.abs(v - cur) < 1e-6 : v === cur;
    if (!same) patch[k] = v;
  }
  return patch as SettingsPatch;
}

/** A setting's bounds as a hint names them ("5 – 3600"), from the server's declaration. */
function range(b: Bounds): { min: string; max: string } {
  return { min: b.min.toLocaleString('en-US'), max: b.max.toLocaleString('en-US') };
}
