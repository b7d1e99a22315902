// Settings: the model servers (each one's address and key, saved as they are changed; the default
// model, sampling, timeouts), custom instructions (section ②),
// the user's presets, memory (whether the model may save facts, and whether they wait for review),
// the user's tool servers (Tools), appearance (theme, language), and the Data tab (back up,
// restore, import a chat). Saved together; only what changed is sent (presets and tool servers
// are saved as they are changed).
// Skills (skillsPane.ts) are saved as they are changed too.

import type { App } from '../app';
import { SETTING_BOUNDS } from '../backend/generated/setting-bounds';
import type { Language, MemoryMode, ModelInfo, SettingsPatch, SettingsView, Theme } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { count } from '../lib/format';
import { language as shownLanguage, t, type Key } from '../lib/i18n';
import { applyTheme } from '../lib/theme';
import { openDialog } from './dialog';
import { searchModelsPatch, searchModelsSection } from './hybridSearch';
import { dataPane } from './exports';
import { mountPresetEditor } from './presetEditor';
import { mountSkillsPane } from './skillsPane';
import { toast } from './toast';
import { mountServers } from './servers';
import { mountToolServers } from './toolServers';

export type Tab = 'server' | 'instructions' | 'presets' | 'memory' | 'tools' | 'skills' | 'appearance' | 'data';

/** The memory modes as offered, each with its one-line explanation. */
const MEMORY_MODES: { mode: MemoryMode; label: Key; hint: Key }[] = [
  { mode: 'off', label: 'memoryModeOff', hint: 'memoryModeOffHint' },
  { mode: 'review', label: 'memoryModeReview', hint: 'memoryModeReviewHint' },
  { mode: 'auto', label: 'memoryModeAuto', hint: 'memoryModeAutoHint' },
];

const CUSTOM_MODEL = '\u0000custom';

export function openSettingsDialog(app: App, tab: Tab = 'server'): void {
  const s = app.settings;
  if (!s) {
    toast(t('offlineBody'), 'error');
    return;
  }

  // ---- fields
  const modelSelect = h('select', { class: 'input', name: 'model', 'data-testid': 'model-select' });
  const modelText = h('input', { class: 'input', type: 'text', value: s.model, placeholder: t('modelName'), spellcheck: 'false' });
  const modelStatus = h('div', { class: 'field-hint', 'data-testid': 'models-status', 'aria-live': 'polite' });
  // Bounds come from the server's one declaration (store::settings::BOUNDS), generated.
  const b = SETTING_BOUNDS;
  const contextLength = numberInput(s.context_length, { ...b.context_length, step: 256 });
  const temperature = numberInput(s.temperature, { ...b.temperature, step: 0.05 });
  const topP = numberInput(s.top_p, { ...b.top_p, step: 0.01 });
  const maxTokens = numberInput(s.max_tokens, { ...b.max_tokens, step: 1 });
  const firstByteTimeout = numberInput(s.first_byte_timeout_secs, { ...b.first_byte_timeout_secs, step: 1 }, t('timeoutDefault'));
  const idleTimeout = numberInput(s.idle_timeout_secs, { ...b.idle_timeout_secs, step: 1 }, t('timeoutDefault'));
  const toolCallTimeout = numberInput(s.tool_call_timeout_secs, { ...b.tool_call_timeout_secs, step: 1 }, t('timeoutDefault'));
  const attachmentMax = numberInput(s.attachment_max_mb, { ...b.attachment_max_mb, step: 1 }, t('timeoutDefault'));
  const attachmentTextMax = numberInput(s.attachment_text_max_chars, { ...b.attachment_text_max_chars, step: 10000 }, t('timeoutDefault'));
  const promptBudget = numberInput(s.prompt_budget_chars, { ...b.prompt_budget_chars, step: 1000 }, t('timeoutDefault'));
  const memoryBudget = numberInput(s.memory_budget_chars, { ...b.memory_budget_chars, step: 500 }, t('timeoutDefault'));
  const toolOutputInline = numberInput(s.tool_output_inline_tokens, { ...b.tool_output_inline_tokens, step: 100 }, t('timeoutDefault'));
  const instructions = h('textarea', { class: 'input textarea', rows: 12, placeholder: t('customInstructionsPlaceholder'), 'data-testid': 'custom-instructions' });
  instructions.value = s.custom_instructions;
  const theme = h('select', { class: 'input', name: 'theme' },
    (['system', 'light', 'dark'] as Theme[]).map((v) => h('option', { value: v }, t(v === 'system' ? 'themeSystem' : v === 'light' ? 'themeLight' : 'themeDark'))));
  theme.value = s.theme;
  theme.addEventListener('change', () => applyTheme(theme.value as Theme)); // preview
  const language = h('select', { class: 'input', name: 'language' }, h('option', { value: 'en' }, 'English'), h('option', { value: 'ko' }, '한국어'));
  // The language the UI shows, which may be the browser's rather than the setting's (see
  // `uiLanguage` in lib/i18n.ts): the user changing it is their choice, and is sent.
  const languageShown = shownLanguage();
  language.value = languageShown;
  const memoryModes = MEMORY_MODES.map(({ mode, label, hint }) => {
    const radio = h('input', { type: 'radio', name: 'memory_mode', value: mode, 'data-testid': `memory-mode-${mode}` });
    radio.checked = s.memory_mode === mode;
    return { radio, node: h('label', { class: 'choice' }, radio, h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t(label), mode === 'review' ? h('span', { class: 'badge' }, t('defaultChoice')) : null), h('span', { class: 'field-hint' }, t(hint)))) };
  });
  const memoryMode = (): MemoryMode => (memoryModes.find((m) => m.radio.checked)?.radio.value as MemoryMode | undefined) ?? 'review';

  // ---- the default model: among what the default server lists (the servers pane asks them)
  const defaultModels = (): ModelInfo[] => {
    const d = app.defaultConnection();
    return (d && app.modelLists.get(d.id)?.models) || [];
  };
  const fillModels = (selected: string) => {
    const models = defaultModels();
    const known = models.some((m) => m.id === selected);
    replaceChildren(modelSelect,
      h('option', { value: '' }, t('modelFirst')),
      models.map((m) => h('option', { value: m.id }, m.context_length ? `${m.id}  (${t('modelContext', { n: count(m.context_length) })})` : m.id)),
      h('option', { value: CUSTOM_MODEL }, t('modelCustom')),
    );
    modelSelect.value = selected === '' ? '' : known ? selected : CUSTOM_MODEL;
    modelText.value = selected;
    modelText.hidden = modelSelect.value !== CUSTOM_MODEL;
  };
  modelSelect.addEventListener('change', () => {
    modelText.hidden = modelSelect.value !== CUSTOM_MODEL;
    if (modelSelect.value !== CUSTOM_MODEL) modelText.value = modelSelect.value;
    else modelText.focus();
  });
  const currentModel = () => (modelSelect.value === CUSTOM_MODEL || modelSelect.options.length === 0 ? modelText.value.trim() : modelSelect.value);
  const modelLabel = h('span', { class: 'field-label' });
  /** The default server's name and answer, drawn again as its list comes (the choice is kept). */
  const showDefaultModels = () => {
    const d = app.defaultConnection();
    modelLabel.textContent = d ? t('defaultModelOn', { server: d.name }) : t('model');
    const list = d && app.modelLists.get(d.id);
    const listed = defaultModels().map((m) => m.id).join('\n');
    if (listed !== shownModels) {
      shownModels = listed;
      fillModels(currentModel());
    }
    modelStatus.className = list?.error ? 'field-hint field-error' : 'field-hint';
    modelStatus.textContent = !d || !list || (list.asking && !list.models) ? t('modelsLoading')
      : list.error ? t('modelsFailed', { error: app.serverError(list.error) })
      : t('modelsFound', { n: list.models?.length ?? 0, url: d.base_url });
  };
  let shownModels = '';
  fillModels(s.model);
  const offServers = app.on('servers', () => {
    if (modelSelect.isConnected) showDefaultModels();
    else offServers();
  });
  showDefaultModels();

  const search = searchModelsSection(app, s);

  // ---- tabs
  const serversPane = h('div', { class: 'servers-pane', 'data-testid': 'servers-pane' });
  const panes: Record<Tab, HTMLElement> = {
    server: h('div', { class: 'pane form' },
      serversPane,
      h('label', { class: 'field' }, modelLabel,
        h('div', { class: 'row' }, modelSelect, h('button', {
          class: 'btn', type: 'button', title: t('checkServer'), 'data-testid': 'check-server',
          onClick: () => {
            const d = app.defaultConnection();
            if (d) void app.loadModelList(d.id);
          },
        }, icon('refresh'), t('refreshModels'))),
        modelText, modelStatus, h('span', { class: 'field-hint' }, t('defaultModelHint'))),
      h('fieldset', { class: 'grid' },
        h('legend', null, t('sampling')),
        field(t('temperature'), temperature, '0 – 2'),
        field(t('topP'), topP, '0 – 1'),
        field(t('maxTokens'), maxTokens),
        field(t('contextLength'), contextLength, t('contextLengthHint')),
      ),
      h('fieldset', { class: 'grid' },
        h('legend', null, t('timeouts')),
        field(t('firstByteTimeout'), firstByteTimeout, t('firstByteTimeoutHint')),
        field(t('idleTimeout'), idleTimeout, t('idleTimeoutHint')),
        field(t('toolCallTimeout'), toolCallTimeout, t('toolCallTimeoutHint')),
      ),
      h('fieldset', { class: 'grid' },
        h('legend', null, t('filesSettings')),
        field(t('attachmentMaxMb'), attachmentMax, t('attachmentMaxMbHint')),
        field(t('attachmentTextMaxChars'), attachmentTextMax, t('attachmentTextMaxCharsHint')),
        field(t('toolOutputInlineTokens'), toolOutputInline, t('toolOutputInlineTokensHint')),
      ),
      search.node,
    ),
    instructions: h('div', { class: 'pane form' }, field(t('customInstructions'), instructions, t('customInstructionsHint'))),
    presets: h('div', { class: 'pane' }),
    memory: h('div', { class: 'pane form' },
      h('fieldset', { class: 'choices', 'data-testid': 'memory-mode' },
        h('legend', null, t('memoryMode')),
        h('p', { class: 'hint' }, t('memoryModeHint')),
        memoryModes.map((m) => m.node),
      ),
      field(t('memoryBudget'), memoryBudget, t('memoryBudgetHint')),
      field(t('promptBudget'), promptBudget, t('promptBudgetHint')),
      h('button', {
        class: 'btn btn-ghost', type: 'button',
        onClick: () => {
          handle.close();
          if (app.panel !== 'memory') app.togglePanel('memory');
        },
      }, icon('brain'), t('manageMemory')),
    ),
    tools: h('div', { class: 'pane tool-servers-pane', 'data-testid': 'tools-pane' }),
    skills: h('div', { class: 'pane skills-pane', 'data-testid': 'skills-pane' }),
    appearance: h('div', { class: 'pane form' }, field(t('theme'), theme), field(t('language'), language)),
    data: dataPane(app, () => handle.close()),
  };
  mountPresetEditor(app, panes.presets);
  mountToolServers(app, panes.tools);
  mountServers(app, serversPane);
  mountSkillsPane(app, panes.skills);

  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const showTab = (which: Tab) => {
    for (const [k, pane] of Object.entries(panes)) pane.hidden = k !== which;
    for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-selected', String(b.dataset.tab === which));
    saveBtn.hidden = which === 'presets' || which === 'tools' || which === 'skills' || which === 'data';
  };
  const labels: Record<Tab, string> = {
    server: t('settingsServer'), instructions: t('settingsInstructions'), presets: t('settingsPresets'), memory: t('settingsMemory'), tools: t('settingsTools'),
    skills: t('settingsSkills'), appearance: t('settingsAppearance'), data: t('settingsData'),
  };
  for (const k of Object.keys(panes) as Tab[]) {
    tabs.appendChild(h('button', { class: 'tab', type: 'button', role: 'tab', dataset: { tab: k }, onClick: () => showTab(k) }, labels[k]));
  }

  let saved = false;
  const saveBtn = h('button', {
    class: 'btn btn-primary', type: 'button', 'data-testid': 'save-settings',
    onClick: async () => {
      const patch = diff(s, {
        model: currentModel(),
        temperature: numberValue(temperature),
        top_p: numberValue(topP),
        max_tokens: numberValue(maxTokens),
        context_length: numberValue(contextLength),
        first_byte_timeout_secs: numberValue(firstByteTimeout),
        idle_timeout_secs: numberValue(idleTimeout),
        tool_call_timeout_secs: numberValue(toolCallTimeout),
        attachment_max_mb: numberValue(attachmentMax),
        attachment_text_max_chars: numberValue(attachmentTextMax),
        prompt_budget_chars: numberValue(promptBudget),
        memory_budget_chars: numberValue(memoryBudget),
        tool_output_inline_tokens: numberValue(toolOutputInline),
        custom_instructions: instructions.value,
        memory_mode: memoryMode(),
        theme: theme.value as Theme,
      }, app.settings);
      if (language.value !== languageShown) patch.language = language.value as Language;
      Object.assign(patch, searchModelsPatch(search.models, app.settings ?? s));
      saveBtn.disabled = true;
      const ok = Object.keys(patch).length === 0 || (await app.saveSettings(patch));
      saveBtn.disabled = false;
      if (ok) {
        saved = true;
        toast(t('saved'));
        handle.close();
      }
    },
  }, t('save'));

  const handle = openDialog({
    title: t('settings'),
    wide: true,
    className: 'settings-dialog',
    body: h('div', { class: 'settings' }, tabs, Object.values(panes)),
    footer: [h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')), saveBtn],
    onClose: () => {
      // A previewed theme goes back if the dialog closes unsaved.
      if (!saved && app.settings) applyTheme(app.settings.theme);
    },
  });
  showTab(tab);
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
type Editable = Omit<SettingsView, 'endpoint_url' | 'api_key_set' | 'language' | 'embeddings' | 'reranker' | 'first_byte_timeout_secs' | 'idle_timeout_secs' | 'attachment_max_mb' | 'attachment_text_max_chars' | 'prompt_budget_chars' | 'memory_budget_chars' | 'tool_output_inline_tokens' | 'tool_call_timeout_secs'> & {
  tool_call_timeout_secs: number | null;
  tool_output_inline_tokens: number | null;
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
