// The context inspector: the five sections of the system prompt in the order the model reads
// them (present or why not, sizes, cuts, text), the whole prompt with its sha256, when and why
// it last changed, what will change with the next message, and the last reply's cache reuse;
// how the next request spends the model's context window, and the summaries standing in for a
// long chat's older turns.

import type { App } from '../app';
import type { CompactOffer, ContextView, SectionReport, SkillOffered, Summary, Tally, TemplateInfo, TokenPlan, ToolOffered } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { count, dateTime, ms, percent, rate, relative, shortSha } from '../lib/format';
import { t, type Key } from '../lib/i18n';
import { loadMarkdownFor, markdownReady, renderMarkdown } from '../lib/markdown';
import { presetSourceText } from '../lib/presets';
import { reasonsText, reasonText } from '../lib/reasons';
import { instructionFilesView } from './instructionFiles';
import { openSettingsDialog } from './settingsLink';
import { toast } from './toast';

const CIRCLED = ['', '①', '②', '③', '④', '⑤'];
const SECTION_TITLES: Record<number, Key> = { 1: 'section1', 2: 'section2', 3: 'section3', 4: 'section4', 5: 'section5' };

export function mountContextPanel(app: App, root: HTMLElement, onClose: () => void): () => void {
  const render = () => {
    const v = app.panels.context;
    replaceChildren(root,
      h('header', { class: 'panel-head' },
        h('h2', null, icon('eye'), t('contextInspector')),
        app.chat.session ? h('button', { class: ['icon-btn', app.panels.contextLoading && 'spin'], type: 'button', title: t('refresh'), 'aria-label': t('refresh'), onClick: () => void app.panels.loadContext() }, icon('refresh')) : null,
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('close'), onClick: onClose }, icon('close')),
      ),
      h('div', { class: 'panel-body', 'data-testid': 'context-panel' },
        !app.chat.session ? h('p', { class: 'hint' }, t('contextDraft'))
          : app.panels.contextError && !v ? h('div', { class: 'msg-error' }, icon('warn'), h('span', null, app.panels.contextError))
          : !v ? h('p', { class: 'hint' }, t('loading'))
          : body(app, v, app.panels.contextError),
      ),
    );
  };
  app.on('context', () => {
    if (app.panels.panel === 'context') render();
  });
  return render;
}

function copyBtn(text: string, label = t('copy')): HTMLElement {
  return h('button', {
    class: 'btn btn-ghost btn-small', type: 'button',
    onClick: async () => {
      try {
        await copyText(text);
        toast(t('copied'));
      } catch (e) {
        toast(String(e), 'error');
      }
    },
  }, icon('copy'), label);
}

function kv(label: string, value: Child, title?: string): HTMLElement {
  return h('div', { class: 'kv', title }, h('span', { class: 'k' }, label), h('span', { class: 'v' }, value));
}

function body(app: App, v: ContextView, staleError: string | null): Child[] {
  const unchanged = !!v.last_sent && v.last_sent.sha256 === v.sha256 && !v.pending_change;
  const r = v.last_reply;
  return [
    staleError ? h('div', { class: 'msg-error' }, icon('warn'), h('span', null, staleError)) : null,
    h('section', { class: 'card summary', 'data-testid': 'context-summary' },
      h('h3', null, t('systemPrompt')),
      kv(t('nextModel'), h('span', { 'data-testid': 'context-model' }, v.model || t('modelServerFirst'))),
      // Which server the request goes to: with several, the model's name alone does not say.
      kv(t('nextServer'), h('span', { class: 'context-server', 'data-testid': 'context-server' }, v.server.name, ' ', h('code', { class: 'muted' }, v.server.base_url)), v.server.base_url),
      kv(t('size'), `${t('chars', { n: count(v.chars) })} · ${t('tokens', { n: count(v.tokens) })} (${v.tokens_source === 'server' ? t('tokensServer') : v.tokens_source === 'calibrated_estimate' ? t('tokensCalibrated') : t('tokensEstimate')})`),
      h('div', { class: 'kv' },
        h('span', { class: 'k' }, t('sha')),
        h('code', { class: 'v sha', title: v.sha256, 'data-testid': 'context-sha' }, shortSha(v.sha256)),
        copyBtn(v.sha256),
      ),
      v.last_sent
        ? h('div', { class: 'changed' },
            kv(t('lastChanged'), h('span', { title: dateTime(v.last_sent.changed_at) }, relative(v.last_sent.changed_at))),
            h('p', { class: 'reason' }, reasonsText(v.last_sent.changes, v.last_sent.change_reason)),
          )
        : h('p', { class: 'hint' }, t('neverSent')),
      v.pending_change
        ? h('div', { class: 'pending', 'data-testid': 'pending-change' }, icon('warn'), h('div', null, h('strong', null, t('pendingChange')), h('p', null, reasonsText(v.pending_changes, v.pending_change))))
        : unchanged ? h('div', { class: 'steady' }, icon('check'), h('span', null, t('unchangedSinceSent'))) : null,
    ),
    contextWindow(app, v.token_plan, v.plan_counts, v.compacts_next, v.compact),
    r
      ? h('section', { class: 'card reply', 'data-testid': 'context-last-reply' },
          h('h3', null, t('lastReply')),
          r.model ? kv(t('model'), r.model) : null,
          r.server ? kv(t('replyServer'), r.server) : null,
          kv(t('cacheReuse'), r.cache_reuse != null
            ? h('span', { class: 'reuse' }, h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${Math.min(100, r.cache_reuse * 100)}%` })), percent(r.cache_reuse))
            : t('cacheUnknown')),
          r.prompt_tokens != null ? kv(t('promptTokens'), `${count(r.prompt_tokens)}${r.cached_tokens != null ? ` (${t('figCached', { n: count(r.cached_tokens) })})` : ''}`) : null,
          r.completion_tokens != null ? kv(t('completionTokens'), count(r.completion_tokens)) : null,
          r.ttft_ms != null ? kv(t('ttft'), ms(r.ttft_ms)) : null,
          r.tokens_per_second != null ? kv(t('speed'), t('figSpeed', { n: rate(r.tokens_per_second) })) : null,
        )
      : null,
    h('ol', { class: 'sections', 'data-testid': 'context-sections' }, v.sections.map((s, i) =>
      section(s, i + 1, presetSourceText(s.source, app.config.presets, t('preset')),
        s.id === 'project_instructions' ? instructionFilesView(v.instruction_files) : s.id === 'memory' ? taughtHere(v.facts_taught_here) : null))),
    toolsOffered(v.tools),
    skillsOffered(app, v.skills),
    summaries(app, v.summaries),
    h('section', { class: 'card' },
      h('details', { class: 'full-prompt' },
        h('summary', null, t('fullSystemPrompt'), ' ', h('span', { class: 'muted' }, t('chars', { n: count(v.chars) }))),
        h('div', { class: 'row-end' }, copyBtn(v.system_prompt)),
        h('pre', { class: 'prompt-text', 'data-testid': 'system-prompt' }, v.system_prompt),
      ),
    ),
    v.overrides.length ? h('section', { class: 'card' }, h('h3', null, t('overrides')), h('ul', { class: 'overrides' }, v.overrides.map(override))) : null,
  ];
}

type Part = 'system' | 'tools' | 'summaries' | 'history' | 'reserve' | 'free';
const PART_LABELS: Record<Part, Key> = { system: 'planSystem', tools: 'planTools', summaries: 'planSummaries', history: 'planHistory', reserve: 'planReserve', free: 'planFree' };

/**
 * The next request against the model's window: one stacked bar (system, summaries, history, the
 * reply's reserve, what is left) with a legend of the same numbers, and the bar's words for screen
 * readers. When the window is unknown, where to set it.
 */
/** Compact now: everything but the last turn is summarised, and the inspector shows the result. */
function compactButton(app: App): HTMLElement | null {
  return chatAction(app, 'compact-now', t('compactNow'), t('compactNowHint'),
    async (id) => ((await app.panels.compact(id)) ? t('compactDone') : t('compactNothing')));
}

/** Undo compaction: the summaries go, and the next request sends every message again. */
function uncompactButton(app: App): HTMLElement | null {
  return chatAction(app, 'uncompact', t('uncompact'), t('uncompactHint'), async (id) => {
    await app.panels.uncompact(id);
    return t('uncompactDone');
  });
}

/** A button that does `run` to the open chat, toasts what it says (or the error) and reloads the
 *  inspector; it is disabled while it runs, so a double click does it once. */
function chatAction(app: App, testid: string, label: string, hint: string, run: (sessionId: number) => Promise<string>): HTMLElement | null {
  const session = app.chat.session;
  if (!session) return null;
  const button = h('button', {
    class: 'btn btn-small', type: 'button', 'data-testid': testid, title: hint,
    onClick: async () => {
      button.setAttribute('disabled', '');
      try {
        toast(await run(session.id));
        await app.panels.loadContext();
      } catch (e) {
        toast(errorMessage(e), 'error');
      } finally {
        button.removeAttribute('disabled');
      }
    },
  }, label);
  return h('div', { class: 'row-end' }, button);
}

/**
 * Compact now only where it makes room: there are older turns to summarise and that frees what
 * the next request is over. Where the system prompt and the tools (or the last message) fill the
 * window, compacting cannot help, and this says so instead.
 */
function compactOffer(app: App, offer: CompactOffer): Child {
  if (offer.offered) return compactButton(app);
  const why = offer.why_not;
  // Nothing older to summarise (or a temporary chat) needs no words: the button is simply not there.
  if (!why || (why.code !== 'prompt_fills_window' && why.code !== 'last_message_fills_window')) return null;
  return h('p', { class: 'warn-line', 'data-testid': 'compact-cannot-help' }, icon('warn'), h('span', null, reasonText(why, why.code)));
}

function contextWindow(app: App, plan: TokenPlan | null, counts: Tally, compactsNext: boolean, offer: CompactOffer): HTMLElement {
  const compacts = [compactsNext
    ? h('div', { class: 'pending', 'data-testid': 'compacts-next' }, icon('warn'), h('span', null, t('compactsNext')))
    : null, compactOffer(app, offer)];
  if (!plan) {
    return h('section', { class: 'card', 'data-testid': 'context-window' },
      h('h3', null, t('contextWindow')),
      h('p', { class: 'hint', 'data-testid': 'window-unknown' }, t('windowUnknown'), ' ',
        h('button', { class: 'link-btn', type: 'button', onClick: () => openSettingsDialog(app, 'server') }, t('windowHowToSet'))),
      compacts,
    );
  }
  const used = plan.system + plan.tools + plan.summaries + plan.history + plan.reserve;
  const parts: [Part, number][] = [
    ['system', plan.system], ['tools', plan.tools], ['summaries', plan.summaries], ['history', plan.history], ['reserve', plan.reserve],
    ['free', Math.max(0, plan.context - used)],
  ];
  // Against the window, or against what is asked when that is more (the bar then stays full).
  const whole = Math.max(plan.context, used, 1);
  const share = (n: number) => (n / whole) * 100;
  const pct = (n: number) => (plan.context > 0 ? `${Math.round((n / plan.context) * 1000) / 10}%` : '');
  const aria = t('planAria', {
    parts: parts.map(([p, n]) => `${t(PART_LABELS[p])} ${t('tokens', { n: count(n) })}`).join(', '),
    context: count(plan.context),
  });
  return h('section', { class: 'card', 'data-testid': 'context-window' },
    h('h3', null, t('contextWindow')),
    kv(t('windowSize'), t('tokens', { n: count(plan.context) })),
    h('div', { class: 'plan-bar', role: 'img', 'aria-label': aria, 'data-testid': 'plan-bar' },
      parts.filter(([, n]) => n > 0).map(([p, n]) =>
        h('span', { class: ['plan-seg', `plan-${p}`], style: `width:${share(n)}%`, title: `${t(PART_LABELS[p])}: ${t('tokens', { n: count(n) })}`, dataset: { part: p, tokens: String(n) } }))),
    planCounts(counts),
    h('ul', { class: 'plan-legend', 'data-testid': 'plan-legend' },
      parts.map(([p, n]) => h('li', { dataset: { part: p } },
        h('span', { class: ['swatch', `plan-${p}`], 'aria-hidden': 'true' }),
        h('span', { class: 'label' }, t(PART_LABELS[p])),
        h('span', { class: 'n' }, count(n)),
        h('span', { class: 'pct' }, pct(n)),
      )),
      used > plan.context
        ? h('li', { class: 'plan-over', dataset: { part: 'over' } }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), h('span', { class: 'label' }, t('planOver')), h('span', { class: 'n' }, count(used - plan.context)), h('span', { class: 'pct' }))
        : null,
    ),
    compacts,
  );
}

/**
 * How the plan's tokens were counted, in one line: a user judges the bar by it (the server's own
 * tokenizer is exact; an estimate can be off by much, more so for Korean). Nothing counted, no line.
 */
function planCounts(c: Tally): HTMLElement | null {
  const total = c.server + c.fitted + c.estimated;
  if (total === 0) return null;
  const text = c.server === total ? t('planCountedServer')
    : c.server > 0 ? t('planCountedPart', { counted: count(c.server), total: count(total) })
    : c.fitted > 0 ? t('planCountedFitted')
    : t('planCountedEstimate');
  return h('p', { class: 'hint plan-counts', 'data-testid': 'plan-counts' }, text);
}

/** The tools the next request offers, each with what it takes of the window. */
function toolsOffered(tools: ToolOffered[]): HTMLElement {
  return h('section', { class: 'card', 'data-testid': 'context-tools' },
    h('h3', null, t('toolsOffered')),
    tools.length
      ? [
          h('p', { class: 'hint' }, t('toolsOfferedHint')),
          h('ul', { class: 'tool-sizes' }, tools.map((x) =>
            h('li', { dataset: { tool: x.name } }, h('span', { class: 'name' }, x.name), h('span', { class: 'n' }, t('tokens', { n: count(x.tokens) }))))),
        ]
      : h('p', { class: 'hint' }, t('noToolsOffered')),
  );
}

/** The skills the prompt lists, each with what it takes there and what its procedure adds once
 *  loaded, and whether this chat loaded it; the way to them in settings. */
function skillsOffered(app: App, skills: SkillOffered[]): HTMLElement {
  const manage = h('button', { class: 'link-btn', type: 'button', 'data-testid': 'manage-skills', onClick: () => openSettingsDialog(app, 'skills') }, t('manageSkills'));
  return h('section', { class: 'card', 'data-testid': 'context-skills' },
    h('h3', null, t('skillsOffered')),
    skills.length
      ? [
          h('p', { class: 'hint' }, t('skillsOfferedHint'), ' ', manage),
          h('ul', { class: 'skills-offered' }, skills.map((s) =>
            h('li', { class: 'skill-offered', 'data-testid': 'context-skill', dataset: { skill: s.name, loaded: String(s.loaded) } },
              h('div', { class: 'skill-offered-top' },
                h('span', { class: 'name' }, s.name),
                s.loaded ? h('span', { class: 'badge badge-present', title: t('skillLoadedHint'), 'data-testid': 'skill-loaded' }, t('skillLoaded')) : null,
                s.listed ? null : h('span', { class: 'badge badge-absent', title: t('skillUnlistedHint'), 'data-testid': 'skill-unlisted' }, t('skillUnlisted')),
              ),
              h('p', { class: 'skill-offered-description' }, s.description),
              h('p', { class: 'skill-offered-sizes', 'data-testid': 'skill-offered-sizes' }, t('skillOfferedSizes', { listed: count(s.listed_chars), body: count(s.body_chars) })),
            ))),
        ]
      : h('p', { class: 'hint' }, t('noSkillsOffered'), ' ', manage),
  );
}

/** A summary as the model wrote it, in Markdown: drawn as a reply is (lists, code, emphasis),
 *  not as its raw marks; its text as written until the renderer is there. */
function summaryText(text: string): HTMLElement {
  const div = h('div', { class: 'summary-text md', 'data-testid': 'summary-text' });
  const draw = () => div.replaceChildren(renderMarkdown(text, { copyLabel: t('copy'), copyTitle: t('copyCode'), plainLabel: t('codePlain') }));
  draw();
  if (!markdownReady([text])) void loadMarkdownFor([text]).then(draw);
  return div;
}

/** The summaries that stand in for older turns, oldest first, and the way back to sending the
 *  whole chat; nothing when there are none. */
function summaries(app: App, list: Summary[]): HTMLElement | null {
  if (!list.length) return null;
  return h('section', { class: 'card', 'data-testid': 'context-summaries' },
    h('h3', null, t('summaries', { n: count(list.length) })),
    h('p', { class: 'hint' }, t('summariesHint')),
    uncompactButton(app),
    h('ol', { class: 'summary-list' }, list.map((s) =>
      h('li', { class: 'summary-item', 'data-testid': 'context-summary-item', dataset: { id: String(s.id) } },
        h('div', { class: 'summary-meta' },
          h('span', { class: 'summary-turns' }, s.turns === 1 ? t('summaryTurnsOne') : t('summaryTurns', { n: count(s.turns) })),
          h('span', { class: 'summary-when', title: dateTime(s.created_at) }, t('summaryWritten', { when: relative(s.created_at) })),
        ),
        summaryText(s.content),
      ))),
  );
}

/** A section's size before and after its budget. Section ④ counts what it lists (files and
 *  skills) before, and characters as sent: said so, not as if both were characters. */
export function sectionSize(s: SectionReport): string {
  if (s.id === 'attachments') return t('sectionItemsSize', { n: count(s.raw_chars), sent: count(s.injected_chars) });
  return t('sectionSize', { raw: count(s.raw_chars), sent: count(s.injected_chars) });
}

/** `n` is its place, ① to ⑤: the server lists the sections in the order the model reads them;
 *  `extra` is what belongs to the section besides its text (③: the folder's instructions files). */
/** The facts this chat taught, which its ⑤ leaves out (its conversation holds them). */
function taughtHere(facts: string[]): HTMLElement | null {
  if (facts.length === 0) return null;
  return h('div', { class: 'taught-here', 'data-testid': 'memory-taught-here' },
    h('p', { class: 'field-hint' }, t('memoryTaughtHere', { n: facts.length })),
    h('ul', null, facts.map((f) => h('li', null, f))));
}

function section(s: SectionReport, n: number, source: string, extra: HTMLElement | null = null): HTMLElement {
  return h('li', { class: ['section', s.present ? 'present' : 'absent'], 'data-testid': 'context-section', dataset: { section: s.id } },
    h('div', { class: 'section-top' },
      h('span', { class: 'num' }, CIRCLED[n] ?? String(n)),
      h('span', { class: 'section-title' }, t(SECTION_TITLES[n] ?? 'section1')),
      h('span', { class: ['badge', s.present ? 'badge-present' : 'badge-absent'] }, s.present ? t('present') : t('absent')),
    ),
    !s.present && s.absent_reason ? h('p', { class: 'absent-reason' }, reasonText(s.absent, s.absent_reason)) : null,
    h('div', { class: 'section-meta' },
      h('span', { title: t('source') }, source),
      s.present ? h('span', { 'data-testid': 'section-size' }, sectionSize(s)) : null,
      s.present ? h('span', null, `≈${t('tokens', { n: count(s.tokens_estimate) })}`) : null,
    ),
    s.template_outdated ? h('p', { class: 'warn-line' }, icon('warn'), t('outdatedTemplate')) : null,
    s.cuts.length
      ? h('ul', { class: 'cuts' }, s.cuts.map((c) => h('li', null, icon('warn'), h('span', null, `${t('cuts')}: `, t('cutDetail', { raw: count(c.raw_chars), kept: count(c.kept_chars), reason: reasonText(c.why, c.reason) })))))
      : null,
    extra,
    s.present && s.text ? h('details', { class: 'section-text' }, h('summary', null, t('showText')), h('pre', null, s.text)) : null,
  );
}

function override(o: TemplateInfo): HTMLElement {
  const src = o.source;
  const kinds: Record<string, Key> = { updated_override: 'overrideUpdated', edited_override: 'overrideEdited', custom_override: 'overrideCustom' };
  const detail = src.kind === 'bundled' ? '' : `${kinds[src.kind] ? t(kinds[src.kind]) : src.kind}: ${src.path}`;
  return h('li', null, h('code', null, o.name), ' ', h('span', { class: 'muted' }, `v${o.version} · ${detail}`));
}
