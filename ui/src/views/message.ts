// One message of a chat: the user's (plain text, edit-and-resend, copy), a reply (Markdown,
// reasoning, tool calls, status badge, figures, copy, regenerate), a tool result, and the reply
// being written while a turn streams. A message with versions (regenerated, edited and resent)
// has ‹ 2 / 3 › to switch between them.

import type { App, LiveTurn } from '../app';
import type { Message } from '../backend/types';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { count, dateTime, ms, rate } from '../lib/format';
import { errorText, t } from '../lib/i18n';
import { MarkdownStream, renderMarkdown, type RenderOptions } from '../lib/markdown';
import { toast } from './toast';

export interface MessageContext {
  /** The reply that Regenerate would replace (the chat's last message). */
  regenerable: boolean;
  /** A turn is running in this chat. */
  busy: boolean;
  editing: boolean;
  onEdit(): void;
  onCancelEdit(): void;
}

export function messageNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  if (m.role === 'user') return userNode(app, m, ctx);
  if (m.role === 'tool') return toolNode(m);
  return replyNode(app, m, ctx);
}

function copyButton(text: () => string): HTMLElement {
  const btn = h('button', {
    class: 'act', type: 'button', title: t('copy'), 'aria-label': t('copy'),
    onClick: async () => {
      try {
        await copyText(text());
        btn.classList.add('done');
        btn.title = t('copied');
        setTimeout(() => {
          btn.classList.remove('done');
          btn.title = t('copy');
        }, 1500);
      } catch (e) {
        toast(String(e), 'error');
      }
    },
  }, icon('copy'), h('span', { class: 'act-label' }, t('copy')));
  return btn;
}

function userNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  const pending = m.id < 0;
  if (ctx.editing) return editorNode(app, m, ctx);
  return h('article', { class: ['msg', 'msg-user', pending && 'sending'], dataset: { messageId: String(m.id), role: 'user' }, 'data-testid': 'message-user' },
    h('div', { class: 'bubble', title: dateTime(m.created_at) }, h('div', { class: 'user-text' }, m.content),
      m.images.length ? h('div', { class: 'user-images muted', 'data-testid': 'message-images' }, icon('image'), ' ', t('imagesSent', { n: m.images.length })) : null),
    pending ? null : h('div', { class: 'msg-actions' },
      versionsNode(app, m, ctx.busy),
      // `idle-only`: the chat enables it again when the reply ends, without drawing the message again.
      h('button', { class: 'act idle-only', type: 'button', disabled: ctx.busy, title: t('editAndResend'), 'aria-label': t('editAndResend'), onClick: ctx.onEdit }, icon('edit'), h('span', { class: 'act-label' }, t('edit'))),
      copyButton(() => m.content),
      ctx.regenerable ? h('button', { class: 'act', type: 'button', disabled: ctx.busy, title: t('answerAgain'), onClick: () => void app.regenerate() }, icon('refresh'), h('span', { class: 'act-label' }, t('answerAgain'))) : null,
    ),
  );
}

function editorNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  const area = h('textarea', { class: 'input textarea edit-area', rows: Math.min(12, Math.max(3, m.content.split('\n').length + 1)) });
  area.value = m.content;
  const submit = async () => {
    const content = area.value;
    ctx.onCancelEdit();
    await app.resend(m.id, content);
  };
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      void submit();
    } else if (e.key === 'Escape') {
      ctx.onCancelEdit();
    }
  });
  queueMicrotask(() => {
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  });
  return h('article', { class: 'msg msg-user editing', dataset: { messageId: String(m.id) } },
    h('div', { class: 'editor' },
      area,
      h('div', { class: 'editor-foot' },
        h('span', { class: 'hint' }, t('resendNote')),
        h('button', { class: 'btn', type: 'button', onClick: ctx.onCancelEdit }, t('cancel')),
        h('button', { class: 'btn btn-primary', type: 'button', disabled: ctx.busy, onClick: () => void submit() }, t('saveAndSend')),
      ),
    ),
  );
}

/** ‹ 2 / 3 ›: which version of the message is shown, and the way to the others. */
function versionsNode(app: App, m: Message, busy: boolean): HTMLElement | null {
  const total = m.versions.length;
  const at = m.versions.indexOf(m.id);
  if (total < 2 || at === -1) return null;
  const step = (to: number, label: string, flip: boolean) => h('button', {
    class: ['act', 'version-step', flip && 'flip'], type: 'button', disabled: busy || to < 0 || to >= total, title: label, 'aria-label': label,
    onClick: () => void app.chooseVersion(m.versions[to]),
  }, icon('chevron'));
  return h('span', { class: 'versions', role: 'group', 'aria-label': t('versions'), 'data-testid': 'versions' },
    step(at - 1, t('previousVersion'), true),
    h('span', { class: 'versions-at', 'data-testid': 'version-at' }, t('versionOf', { n: at + 1, total })),
    step(at + 1, t('nextVersion'), false),
  );
}

function statusBadge(status: Message['status']): HTMLElement | null {
  const labels: Partial<Record<Message['status'], string>> = {
    stopped: t('statusStopped'),
    interrupted: t('statusInterrupted'),
    error: t('statusError'),
    streaming: t('statusStreaming'),
  };
  const label = labels[status];
  return label ? h('span', { class: ['badge', `badge-${status}`], 'data-testid': 'status-badge' }, label) : null;
}

/** Token counts, cache, time to first token and speed, small under the reply. */
export function figures(m: Pick<Message, 'model' | 'prompt_tokens' | 'completion_tokens' | 'cached_tokens' | 'ttft_ms' | 'tokens_per_second'>): HTMLElement | null {
  const parts: Child[] = [];
  const add = (text: string, title?: string) => parts.push(h('span', { class: 'fig', title }, text));
  if (m.model) add(m.model);
  if (m.prompt_tokens != null) add(t('figPrompt', { n: count(m.prompt_tokens) }));
  if (m.completion_tokens != null) add(t('figCompletion', { n: count(m.completion_tokens) }));
  if (m.cached_tokens != null) add(t('figCached', { n: count(m.cached_tokens) }), m.prompt_tokens ? `${Math.round((m.cached_tokens / m.prompt_tokens) * 100)}%` : undefined);
  if (m.ttft_ms != null) add(t('figTtft', { ms: ms(m.ttft_ms) }), t('ttft'));
  if (m.tokens_per_second != null) add(t('figSpeed', { n: rate(m.tokens_per_second) }));
  return parts.length ? h('div', { class: 'figures', 'data-testid': 'figures' }, parts) : null;
}

function reasoningNode(text: string, open: boolean): HTMLElement | null {
  if (!text.trim()) return null;
  return h('details', { class: 'reasoning', open }, h('summary', null, t('reasoning')), h('div', { class: 'reasoning-text' }, text));
}

/** The memory tools (remember, update_memory, forget, search_memory) show as memory; the rest as search. */
const MEMORY_TOOLS = new Set(['remember', 'update_memory', 'forget', 'search_memory']);
const toolIcon = (name: string | null) => icon(name && MEMORY_TOOLS.has(name) ? 'brain' : 'search');

function toolCallsNode(calls: { id: string; name: string; arguments: string; result?: string; isError?: boolean }[]): HTMLElement | null {
  if (calls.length === 0) return null;
  return h('div', { class: 'tool-calls' }, calls.map((c) =>
    h('details', { class: ['tool-call', c.isError && 'tool-error'] },
      h('summary', null, toolIcon(c.name), c.isError ? t('toolError', { name: c.name }) : t('toolCall', { name: c.name })),
      h('pre', { class: 'tool-args' }, prettyJson(c.arguments)),
      c.result !== undefined ? h('pre', { class: 'tool-result' }, c.result) : null,
    )));
}

function prettyJson(s: string): string {
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}

const markdownLabels = (): RenderOptions => ({ copyLabel: t('copy'), copyTitle: t('copyCode'), plainLabel: t('codePlain') });

function markdownNode(text: string): HTMLElement {
  const div = h('div', { class: 'md' });
  div.appendChild(renderMarkdown(text, markdownLabels()));
  return div;
}

// The reply being written keeps its rendered blocks (and their element) between frames: only the
// last block is parsed again.
const streams = new WeakMap<HTMLElement, { stream: MarkdownStream; labels: string; div: HTMLElement }>();

function liveMarkdownNode(el: HTMLElement, text: string): HTMLElement {
  const labels = markdownLabels();
  const key = JSON.stringify(labels);
  let s = streams.get(el);
  if (!s || s.labels !== key) streams.set(el, (s = { stream: new MarkdownStream(labels), labels: key, div: h('div', { class: 'md' }) }));
  s.div.querySelectorAll('.cursor').forEach((c) => c.remove());
  s.stream.render(text, s.div);
  return s.div;
}

/** A failed reply's text in the UI's language, by its stored code (or the one it failed with in
 *  this window, for a reply stored before codes were kept). */
function replyError(app: App, m: Message): string {
  const code = m.error_code ?? app.replyErrors.get(m.id)?.code;
  return code ? errorText({ code, message: m.error ?? '' }) : m.error ?? '';
}

function replyNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  const note = m.status === 'interrupted' ? t('interruptedNote') : null;
  const empty = !m.content.trim();
  return h('article', { class: ['msg', 'msg-assistant', `status-${m.status}`], dataset: { messageId: String(m.id), role: 'assistant' }, 'data-testid': 'message-assistant' },
    h('div', { class: 'msg-head' },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, icon('logo')),
      h('span', { class: 'who' }, t('assistant')),
      statusBadge(m.status),
      h('time', { class: 'when', datetime: new Date(m.created_at).toISOString() }, dateTime(m.created_at)),
    ),
    reasoningNode(m.reasoning ?? '', false),
    toolCallsNode(m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }))),
    empty ? null : markdownNode(m.content),
    m.error ? h('div', { class: 'msg-error', role: 'note' }, icon('warn'), h('span', null, replyError(app, m))) : null,
    note ? h('div', { class: 'msg-note' }, note) : null,
    h('div', { class: 'msg-foot' },
      figures(m),
      h('div', { class: 'msg-actions' },
        versionsNode(app, m, ctx.busy),
        empty ? null : copyButton(() => m.content),
        ctx.regenerable ? h('button', { class: 'act', type: 'button', disabled: ctx.busy, title: t('regenerate'), 'data-testid': 'regenerate', onClick: () => void app.regenerate() }, icon('refresh'), h('span', { class: 'act-label' }, t('regenerate'))) : null,
      ),
    ),
  );
}

function toolNode(m: Message): HTMLElement {
  const name = m.tool_name ?? t('tool');
  return h('article', { class: 'msg msg-tool', dataset: { messageId: String(m.id), role: 'tool' } },
    h('details', { class: 'tool-call' },
      h('summary', null, toolIcon(m.tool_name), t('toolResult', { name })),
      h('pre', { class: 'tool-result' }, m.content),
    ),
  );
}

/** The reply being written. Redrawn (cheaply) on every streamed event. */
export function liveNode(live: LiveTurn): HTMLElement {
  const el = h('article', { class: 'msg msg-assistant live', 'data-testid': 'message-live', 'aria-live': 'polite', 'aria-busy': 'true' });
  updateLiveNode(el, live);
  return el;
}

export function updateLiveNode(el: HTMLElement, live: LiveTurn): void {
  const waiting = !live.text && !live.reasoning && live.tools.length === 0 && !live.error;
  const usage = live.usage;
  replaceChildren(el,
    h('div', { class: 'msg-head' },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, icon('logo')),
      h('span', { class: 'who' }, t('assistant')),
      live.error ? h('span', { class: 'badge badge-error' }, t('statusError')) : h('span', { class: 'badge badge-streaming' }, live.stopping ? t('stop') + '…' : t('statusStreaming')),
    ),
    reasoningNode(live.reasoning, !live.text),
    toolCallsNode(live.tools),
    waiting ? h('div', { class: 'typing' }, h('span'), h('span'), h('span')) : null,
    live.text ? liveMarkdownNode(el, live.text) : null,
    live.error ? h('div', { class: 'msg-error', role: 'alert' }, icon('warn'), h('span', null, errorText(live.error))) : null,
    usage ? h('div', { class: 'msg-foot' }, figures({ model: null, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cached_tokens: usage.cached_tokens, ttft_ms: null, tokens_per_second: null })) : null,
  );
  const md = el.querySelector('.md');
  if (md && !live.error) {
    const last = md.lastElementChild;
    const target = last && (last.tagName === 'P' || last.tagName.startsWith('H')) ? last : md;
    target.appendChild(h('span', { class: 'cursor', 'aria-hidden': 'true' }));
  }
}
