// One entry of a chat: the user's message (plain text, its images and files, edit-and-resend,
// copy), or a reply (Markdown, reasoning, status badge, figures, copy, regenerate) with every round
// of it: a reply that called tools is stored as several messages (the model's calls, the tools'
// results, what it wrote next) and shows as one, with a compact chip per call. The reply being
// written while a turn streams looks the same. An entry with versions (regenerated, edited and
// resent) has ‹ 2 / 3 › to switch between them.

import type { App } from '../app';
import type { Attachment, Message, ToolFailure } from '../backend/types';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { count, dateTime, fileSize, ms, rate } from '../lib/format';
import { errorText, t, type Key } from '../lib/i18n';
import { MarkdownStream, renderMarkdown, type RenderOptions } from '../lib/markdown';
import { clip, MEMORY_TOOLS, serverTool, shortArgs, toolKept, toolOutcome, type ToolCallView, type ToolOutcome } from '../lib/tools';
import type { ApprovalAnswer, LiveApproval, LiveTurn } from '../state/chat';
import { openDialog } from './dialog';
import { rankingNote } from './hybridSearch';
import { forkButton } from './fork';
import { downloadFile } from './files';
import { toast } from './toast';
import { toolHintBadges } from './toolHints';

/**
 * One entry of the chat as drawn: a message of the user's, or a reply with all its rounds (the
 * assistant messages and tool results up to the next message of the user's). `id`: its first
 * message's.
 */
export interface Entry {
  id: number;
  parts: Message[];
}

/** The messages (oldest first) as entries: each reply's tool rounds joined to the reply they belong to. */
export function groupReplies(messages: readonly Message[]): Entry[] {
  const out: Entry[] = [];
  for (const m of messages) {
    const prev = out.at(-1);
    const last = prev?.parts.at(-1);
    // A tool result follows a call, and the model's next round follows the results (a reply that
    // called no tool is complete: another message after it starts a new entry).
    const continues = m.role !== 'user' && prev && prev.parts[0].role !== 'user' && last
      && (m.role === 'tool' || last.role === 'tool' || last.tool_calls.length > 0);
    if (continues) prev.parts.push(m);
    else out.push({ id: m.id, parts: [m] });
  }
  return out;
}

/**
 * The chat's own files (not images: a message names those itself) that went with each of the
 * user's messages: attached after the user's previous message and before this one, as the
 * composer shows them until the message is sent. `complete`: the entries start at the chat's
 * first message (else the first message's earlier bound is not known, and it gets none).
 */
export function filesSentWith(entries: readonly Entry[], files: readonly Attachment[], complete: boolean): Map<number, Attachment[]> {
  const out = new Map<number, Attachment[]>();
  const docs = files.filter((a) => a.kind !== 'image');
  let after: number | null = complete ? -Infinity : null;
  for (const e of entries) {
    const m = e.parts[0];
    if (m.role !== 'user') continue;
    // A message not stored yet was just sent: everything attached since the previous one.
    const until = m.id < 0 ? Infinity : m.created_at;
    if (after !== null && docs.length) {
      const from = after;
      const sent = docs.filter((a) => a.created_at > from && a.created_at <= until);
      if (sent.length) out.set(m.id, sent);
    }
    after = until;
  }
  return out;
}

export interface MessageContext {
  /** The reply that Regenerate would replace (the chat's last message). */
  regenerable: boolean;
  /** A turn is running in this chat. */
  busy: boolean;
  editing: boolean;
  onEdit(): void;
  onCancelEdit(): void;
  /** A message of the user's: the chat's files that went with it (`filesSentWith`). */
  sentFiles?: Attachment[];
}

export function entryNode(app: App, e: Entry, ctx: MessageContext): HTMLElement {
  if (e.parts[0].role === 'user') return userNode(app, e.parts[0], ctx);
  return replyNode(app, e.parts, ctx);
}

/** One message on its own (a reply without its other rounds, a tool result). */
export function messageNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  return entryNode(app, { id: m.id, parts: [m] }, ctx);
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
    attachmentsNode(app, m, ctx.sentFiles ?? []),
    h('div', { class: 'bubble', title: dateTime(m.created_at) }, h('div', { class: 'user-text' }, m.content)),
    pending ? null : h('div', { class: 'msg-actions' },
      versionsNode(app, m, ctx.busy),
      // `idle-only`: the chat enables it again when the reply ends, without drawing the message again.
      h('button', { class: 'act idle-only', type: 'button', disabled: ctx.busy, title: t('editAndResend'), 'aria-label': t('editAndResend'), onClick: ctx.onEdit }, icon('edit'), h('span', { class: 'act-label' }, t('edit'))),
      copyButton(() => m.content),
      forkButton(app, m.id),
      ctx.regenerable ? h('button', { class: 'act', type: 'button', disabled: ctx.busy, title: t('answerAgain'), onClick: () => void app.chat.regenerate() }, icon('refresh'), h('span', { class: 'act-label' }, t('answerAgain'))) : null,
    ),
  );
}

/** Object URLs of images shown, by attachment id (the route needs the token: fetched, not linked). */
const imageUrls = new Map<number, Promise<string>>();

function imageUrl(app: App, id: number): Promise<string> {
  let url = imageUrls.get(id);
  if (!url) {
    url = app.attachments.download(id).then((blob) => URL.createObjectURL(blob));
    // Failed (deleted since, offline): asked again the next time it is drawn.
    url.catch(() => imageUrls.delete(id));
    imageUrls.set(id, url);
  }
  return url;
}

/** What went with a message of the user's: its images as thumbnails (a click shows one large)
 *  and its files as chips (a click saves the file). */
function attachmentsNode(app: App, m: Message, files: Attachment[]): HTMLElement | null {
  if (m.images.length === 0 && files.length === 0) return null;
  const { own, project } = app.attachments.chatFiles();
  const known = new Map([...own, ...project].map((a) => [a.id, a]));
  return h('div', { class: 'msg-attachments', role: 'group', 'aria-label': t('sentWithMessage'), 'data-testid': 'message-attachments' },
    m.images.map((id) => imageThumb(app, id, known.get(id) ?? null)),
    files.map((a) => fileChip(app, a)),
  );
}

function imageThumb(app: App, id: number, a: Attachment | null): HTMLElement {
  const name = a?.name ?? t('imageSent');
  const img = h('img', { class: 'thumb-img', alt: name, decoding: 'async' });
  const btn = h('button', {
    class: 'thumb', type: 'button', title: t('viewImage', { name }), 'aria-label': t('viewImage', { name }), 'data-testid': 'message-image',
    dataset: { attachmentId: String(id) }, onClick: () => void viewImage(app, id, name),
  }, img);
  imageUrl(app, id).then((url) => {
    img.src = url;
  }, () => {
    btn.classList.add('thumb-gone');
    btn.disabled = true;
    btn.title = t('imageGone');
    replaceChildren(btn, icon('image'), h('span', null, t('imageGone')));
  });
  return btn;
}

/** The image large, in a dialog (Escape or a click beside it closes it). */
async function viewImage(app: App, id: number, name: string): Promise<void> {
  const url = await app.attempt(() => imageUrl(app, id));
  if (!url) return;
  const handle = openDialog({
    title: name,
    wide: true,
    className: 'image-dialog',
    body: h('img', { class: 'image-large', src: url, alt: name, 'data-testid': 'image-large' }),
    footer: h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('close')),
  });
}

function fileChip(app: App, a: Attachment): HTMLElement {
  return h('button', {
    class: 'file-chip', type: 'button', title: t('downloadFile', { name: a.name }), 'data-testid': 'message-file', dataset: { attachmentId: String(a.id) },
    onClick: () => void downloadFile(app, a),
  }, icon('file'), h('span', { class: 'file-chip-name' }, a.name), h('span', { class: 'file-chip-size' }, fileSize(a.size)));
}

function editorNode(app: App, m: Message, ctx: MessageContext): HTMLElement {
  const area = h('textarea', { class: 'input textarea edit-area', rows: Math.min(12, Math.max(3, m.content.split('\n').length + 1)) });
  area.value = m.content;
  const submit = async () => {
    const content = area.value;
    ctx.onCancelEdit();
    await app.chat.resend(m.id, content);
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
    onClick: () => void app.chat.chooseVersion(m.versions[to]),
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
export function figures(m: Pick<Message, 'model' | 'server' | 'prompt_tokens' | 'completion_tokens' | 'cached_tokens' | 'ttft_ms' | 'tokens_per_second'>): HTMLElement | null {
  const parts: Child[] = [];
  const add = (text: string, title?: string) => parts.push(h('span', { class: 'fig', title }, text));
  // The server that wrote it, on hover: one user's several servers can serve the same model.
  if (m.model) add(m.model, m.server ? t('writtenBy', { server: m.server }) : undefined);
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

/** How the chat names Maru's tools (another tool shows by its own name). */
const TOOL_LABELS: Record<string, Key> = {
  remember: 'toolRemember', update_memory: 'toolUpdateMemory', forget: 'toolForget', search_memory: 'toolSearchMemory', search_attachment: 'toolSearchFiles',
  read_tool_output: 'toolReadOutput', load_skill: 'toolLoadSkill', read_skill_file: 'toolReadSkillFile', search_skills: 'toolSearchSkills',
  search_tools: 'toolSearchTools',
};
/** A tool server's tool by its server and its own name ("files · read_file"). */
function toolLabel(name: string): string {
  if (TOOL_LABELS[name]) return t(TOOL_LABELS[name]);
  const st = serverTool(name);
  return st ? `${st.server} · ${st.tool}` : name;
}

const STATUS: Record<ToolOutcome['kind'], Key> = {
  running: 'toolRunning', waiting: 'toolWaiting', denied: 'toolDenied', notApproved: 'toolNotApproved', unanswered: 'toolUnanswered', error: 'toolFailed', proposed: 'toolProposed', saved: 'toolSaved', merged: 'toolMerged',
  updated: 'toolUpdated', forgotten: 'toolForgotten', needsReview: 'toolNeedsReview', facts: 'toolFound', passages: 'toolFound',
  nothingFound: 'toolNothingFound', skills: 'toolFound', tools: 'toolFound', skillLoaded: 'toolDone', skillFile: 'toolDone', page: 'toolDone', text: 'toolDone',
};

/** The chip's few words on how the call went: "proposed", "3 found", "failed". */
function statusText(o: ToolOutcome): string {
  if (o.kind === 'facts') return t('toolFound', { n: o.facts.length });
  if (o.kind === 'passages') return t('toolFound', { n: o.passages.length });
  if (o.kind === 'skills' || o.kind === 'tools') return t('toolFound', { n: o.names.length });
  // New words for a fact already kept, waiting for the user: a change proposed, not a fact known.
  if (o.kind === 'merged' && o.pending) return t('toolChangeProposed');
  return t(STATUS[o.kind]);
}

/** The calls of a reply's rounds, each with its result and what it did (a result whose call is on
 *  a page not loaded shows on its own). */
export function replyCalls(parts: readonly Message[]): ToolCallView[] {
  const results = new Map<string, Message>();
  for (const p of parts) if (p.role === 'tool' && p.tool_call_id) results.set(p.tool_call_id, p);
  const calls: ToolCallView[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    if (p.role === 'assistant') {
      for (const c of p.tool_calls) {
        seen.add(c.id);
        const r = results.get(c.id);
        calls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: r?.content, outcome: r?.tool_outcome });
      }
    } else if (p.role === 'tool' && !(p.tool_call_id && seen.has(p.tool_call_id))) {
      calls.push({ id: p.tool_call_id ?? `tool-${p.id}`, name: p.tool_name ?? t('tool'), arguments: '', result: p.content, outcome: p.tool_outcome });
    }
  }
  return calls;
}

function toolChipsNode(calls: readonly ToolCallView[], live: boolean, app: App | null): HTMLElement | null {
  if (calls.length === 0) return null;
  return h('div', { class: 'tool-calls', 'data-testid': 'tool-calls' }, calls.map((c) => toolChip(c, live, app)));
}

/** A fact the model proposed that the user has accepted since: shown as saved, not "proposed". */
function nowAccepted(o: ToolOutcome, app: App | null): ToolOutcome {
  return o.kind === 'proposed' && app?.memory.memories.some((m) => m.id === o.id) ? { kind: 'saved', id: o.id, fact: o.fact } : o;
}

/** The ids of the facts proposed in `parts` that are accepted now (a message is drawn again when
 *  one is accepted). */
export function acceptedProposals(parts: readonly Message[], app: App): string {
  const accepted = new Set(app.memory.memories.map((m) => m.id));
  const ids: number[] = [];
  for (const p of parts) {
    const did = p.tool_outcome?.did;
    if (did && did.kind === 'proposed' && accepted.has(did.id)) ids.push(did.id);
  }
  return ids.join(',');
}

/** One call: the tool, its arguments in short and how it went; opened, what it did and its arguments. */
function toolChip(call: ToolCallView, live: boolean, app: App | null): HTMLElement {
  const o = nowAccepted(toolOutcome(call, live), app);
  const args = shortArgs(call);
  return h('details', { class: ['tool-chip', `tool-${o.kind}`], 'data-testid': 'tool-chip', dataset: { tool: call.name, outcome: o.kind, callId: call.id } },
    h('summary', { title: t('toolShowDetails') },
      icon(MEMORY_TOOLS.has(call.name) ? 'brain' : serverTool(call.name) ? 'tool' : 'search'),
      h('span', { class: 'tool-name' }, toolLabel(call.name)),
      args ? h('span', { class: 'tool-short', 'data-testid': 'tool-short' }, args) : null,
      h('span', { class: 'tool-status', 'data-testid': 'tool-status' },
        o.kind === 'running' ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : o.kind === 'error' ? icon('warn') : o.kind === 'waiting' ? icon('shield') : null,
        statusText(o)),
    ),
    h('div', { class: 'tool-body' },
      resultNode(o, app),
      keptNode(call),
      call.arguments.trim() ? h('div', { class: 'tool-section' }, h('div', { class: 'tool-section-label' }, t('toolArguments')), h('pre', { class: 'tool-args' }, prettyJson(call.arguments))) : null,
    ),
  );
}

/** Why a call failed, in the user's words; `tool_error` is the tool server's own, shown as it said it. */
const FAILURE: Record<ToolFailure, Key | null> = {
  no_such_tool: 'toolFailNoSuchTool', bad_arguments: 'toolFailBadArguments', query_required: 'toolFailQueryRequired',
  no_search_words: 'toolFailNoSearchWords', memory_off: 'toolFailMemoryOff', fact_required: 'toolFailFactRequired',
  id_required: 'toolFailIdRequired', not_a_reference: 'toolFailNotAReference', no_stored_output: 'toolFailNoStoredOutput',
  offset_past_end: 'toolFailOffsetPastEnd', server_unavailable: 'toolFailServerUnavailable', call_timed_out: 'toolFailCallTimedOut',
  server_failed: 'toolFailServerFailed', no_such_skill: 'toolFailNoSuchSkill', no_such_skill_file: 'toolFailNoSuchSkillFile',
  tool_error: null,
};

/** What the call did, for the user: the fact proposed or saved (with the way to it in the memory
 *  panel), the facts or passages found, nothing found, or why it failed. */
function resultNode(o: ToolOutcome, app: App | null): HTMLElement {
  const box = (...children: Child[]) => h('div', { class: 'tool-result', 'data-testid': 'tool-result' }, ...children);
  const line = (key: Key, vars?: Record<string, string | number>) => h('p', { class: 'tool-line' }, t(key, vars));
  const fact = (text: string) => h('blockquote', { class: 'tool-fact', 'data-testid': 'tool-fact' }, text);
  const open = (id: number, key: Key) => app ? h('button', {
    class: 'btn btn-small tool-open-memory', type: 'button', 'data-testid': 'tool-open-memory', dataset: { memoryId: String(id) },
    onClick: () => void app.memory.showMemory(id),
  }, icon('brain'), t(key)) : null;
  switch (o.kind) {
    case 'running':
      return box(line('toolRunningLong'));
    case 'waiting':
      return box(line('toolWaitingLong'));
    case 'denied':
      return box(line('toolDeniedLong'));
    case 'notApproved':
      return box(line('toolNotApprovedLong'));
    case 'unanswered':
      return box(line('toolUnansweredLong'));
    case 'error': {
      // Why, in the user's words where the server said why; else what the tool itself said.
      if (o.failure === 'server_removed') return box(line('toolServerRemovedLong'));
      if (o.failure === 'server_turned_off') return box(line('toolServerTurnedOffLong'));
      const why = o.refused ? errorText(o.refused) : o.failure && FAILURE[o.failure] ? t(FAILURE[o.failure]!) : o.message;
      return box(line('toolFailedLong'), h('p', { class: 'tool-error-text' }, why));
    }
    case 'proposed':
      return box(line('toolProposedLong'), fact(o.fact), open(o.id, 'toolReview'));
    case 'saved':
      return box(line('toolSavedLong'), fact(o.fact), open(o.id, 'toolShowInMemory'));
    case 'merged':
      return box(line(o.pending ? 'toolMergedPendingLong' : 'toolMergedLong'), fact(o.fact), open(o.id, o.pending ? 'toolReview' : 'toolShowInMemory'));
    case 'updated':
      return box(line('toolUpdatedLong'), fact(o.fact), open(o.id, 'toolShowInMemory'));
    case 'forgotten':
      return box(line('toolForgottenLong'));
    case 'needsReview':
      return box(line('toolNeedsReviewLong'), open(o.id, 'toolShowInMemory'));
    case 'facts':
      return box(line('toolFactsLong', { n: o.facts.length }), h('ul', { class: 'tool-found' }, o.facts.map((f) => h('li', null, f.content))));
    case 'passages': {
      const files = [...new Set(o.passages.map((p) => p.file))];
      return box(line('toolPassagesLong', { n: o.passages.length, files: files.join(', ') }),
        h('ol', { class: 'tool-found' }, o.passages.map((p) => h('li', { 'data-testid': 'tool-passage' },
          h('div', { class: 'passage-source' }, [p.file, p.page !== null ? t('passagePage', { n: p.page }) : null, p.lines ? t('passageLines', { from: p.lines[0], to: p.lines[1] }) : null].filter(Boolean).join(' · ')),
          h('div', { class: 'passage-text' }, clip(p.text, 600))))), rankingNote(o.ranking));
    }
    case 'nothingFound':
      return box(line('toolNothingFoundLong', { query: o.query }), rankingNote(o.ranking));
    case 'skills':
      return box(line('toolSkillsLong', { n: o.names.length }), h('ul', { class: 'tool-found' }, o.names.map((n) => h('li', null, n))));
    case 'tools':
      return box(line('toolToolsLong', { n: o.names.length }), h('ul', { class: 'tool-found' }, o.names.map((n) => h('li', null, n))));
    case 'skillLoaded':
      return box(line('toolSkillLoadedLong', { name: o.name }), h('pre', { class: 'tool-text' }, o.text));
    case 'skillFile':
      return box(line('toolSkillFileLong', { name: o.name, path: o.path }), h('pre', { class: 'tool-text' }, o.text));
    case 'page':
      return box(line('toolPageLong', { ref: o.reference, from: o.from, to: o.to, lines: o.lines }), h('pre', { class: 'tool-text' }, o.text));
    case 'text':
      return box(h('pre', { class: 'tool-text' }, o.text));
  }
}

/** A long result the model got the first lines of, and how it reads on. */
function keptNode(call: ToolCallView): HTMLElement | null {
  const kept = toolKept(call);
  if (!kept) return null;
  return h('p', { class: 'tool-line tool-kept', 'data-testid': 'tool-kept' },
    t('toolKeptLong', { lines: kept.lines, shown: kept.shown, ref: kept.reference }));
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
  const code = m.error_code ?? app.chat.replyErrors.get(m.id)?.code;
  return code ? app.servers.serverError({ code, message: m.error ?? '' }) : m.error ?? '';
}

/** The figures of a reply's rounds: the last round's prompt, cache and speed (its prompt holds
 *  every earlier round), the tokens written in all of them, and the wait for the first. */
function replyFigures(replies: readonly Message[]): Parameters<typeof figures>[0] {
  const last = replies[replies.length - 1];
  const written = replies.reduce<number | null>((n, r) => (r.completion_tokens == null ? n : (n ?? 0) + r.completion_tokens), null);
  return {
    model: last.model, server: last.server, prompt_tokens: last.prompt_tokens, completion_tokens: written, cached_tokens: last.cached_tokens,
    ttft_ms: replies.find((r) => r.ttft_ms != null)?.ttft_ms ?? null, tokens_per_second: last.tokens_per_second,
  };
}

function replyNode(app: App, parts: readonly Message[], ctx: MessageContext): HTMLElement {
  const head = parts[0];
  const replies = parts.filter((p) => p.role === 'assistant');
  // How the reply ended is its last round's (a tool result on its own, from a page not loaded, is complete).
  const last = replies[replies.length - 1] ?? head;
  const note = last.status === 'interrupted' ? t('interruptedNote') : null;
  const texts = replies.map((r) => r.content).filter((c) => c.trim());
  const reasoning = replies.map((r) => r.reasoning ?? '').filter((r) => r.trim()).join('\n\n');
  return h('article', {
    class: ['msg', 'msg-assistant', `status-${last.status}`],
    dataset: { messageId: String(head.id), messageIds: parts.map((p) => p.id).join(' '), role: 'assistant' },
    'data-testid': 'message-assistant',
  },
    h('div', { class: 'msg-head' },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, icon('logo')),
      h('span', { class: 'who' }, t('assistant')),
      statusBadge(last.status),
      h('time', { class: 'when', datetime: new Date(head.created_at).toISOString() }, dateTime(head.created_at)),
    ),
    reasoningNode(reasoning, false),
    toolChipsNode(replyCalls(parts), false, app),
    texts.map(markdownNode),
    last.error ? h('div', { class: 'msg-error', role: 'note' }, icon('warn'), h('span', null, replyError(app, last))) : null,
    note ? h('div', { class: 'msg-note' }, note) : null,
    h('div', { class: 'msg-foot' },
      replies.length ? figures(replyFigures(replies)) : null,
      h('div', { class: 'msg-actions' },
        versionsNode(app, head, ctx.busy),
        texts.length ? copyButton(() => texts.join('\n\n')) : null,
        last.status === 'streaming' ? null : forkButton(app, last.id),
        ctx.regenerable ? h('button', { class: 'act', type: 'button', disabled: ctx.busy, title: t('regenerate'), 'data-testid': 'regenerate', onClick: () => void app.chat.regenerate() }, icon('refresh'), h('span', { class: 'act-label' }, t('regenerate'))) : null,
      ),
    ),
  );
}

const DECIDED: Record<NonNullable<LiveApproval['decision']>, Key> = {
  once: 'approvalDecidedOnce', always: 'approvalDecidedAlways', denied: 'approvalDecidedDenied', timed_out: 'approvalDecidedTimedOut',
  server_stopped: 'approvalDecidedServerStopped',
};

/**
 * A tool server's call waiting for the user, in the reply being written: the server, the tool and
 * what it would be asked (the arguments as JSON, scrolling when long), and the three answers,
 * disabled while one is on its way. Once answered (in this window or another, or no answer: the
 * reply stopped) it says how, in a line.
 */
export function approvalCard(approval: LiveApproval, answer: (a: ApprovalAnswer) => void): HTMLElement {
  const what = h('span', { class: 'approval-what' }, `${approval.server} · ${approval.tool}`);
  const data = { approval: approval.id, decision: approval.decision ?? '' };
  if (approval.decision !== null || approval.elsewhere) {
    const key: Key = approval.decision !== null ? DECIDED[approval.decision] : 'approvalElsewhere';
    const allowed = approval.decision === 'once' || approval.decision === 'always';
    return h('div', { class: ['approval', 'approval-decided', allowed ? 'approval-allowed' : 'approval-refused'], 'data-testid': 'approval-decided', dataset: data, tabindex: '-1', role: 'status' },
      icon(allowed ? 'check' : 'close'), h('span', { class: 'approval-decision', 'data-testid': 'approval-decision' }, t(key)), what);
  }
  const busy = approval.answering;
  const button = (a: ApprovalAnswer, label: Key, cls: string) => h('button', {
    class: ['btn', 'btn-small', cls], type: 'button', disabled: busy, 'data-testid': `approve-${a}`, onClick: () => answer(a),
  }, t(label));
  let args = approval.arguments.trim();
  args = args === '' || args === '{}' ? '' : prettyJson(args);
  return h('div', {
    class: 'approval', role: 'group', tabindex: '-1', 'aria-label': t('approvalAsk', { server: approval.server, tool: approval.tool }), 'aria-busy': String(busy),
    'data-testid': 'approval', dataset: data,
  },
    h('div', { class: 'approval-head' }, icon('shield'), h('span', { class: 'approval-title', 'data-testid': 'approval-title' }, t('approvalAsk', { server: approval.server, tool: approval.tool }))),
    h('p', { class: 'approval-hint' }, t(args ? 'approvalHint' : 'approvalHintNoArgs')),
    toolHintBadges(approval.hints),
    args ? h('pre', { class: 'approval-args', 'data-testid': 'approval-args', tabindex: '0', 'aria-label': t('toolArguments') }, args) : null,
    h('div', { class: 'approval-actions' },
      button('once', 'approveOnce', 'btn-primary'),
      button('always', 'approveAlways', 'approve-always'),
      button('deny', 'approveDeny', 'approve-deny'),
    ),
  );
}

/** The reply being written. Redrawn (cheaply) on every streamed event. */
export function liveNode(live: LiveTurn, app: App | null = null): HTMLElement {
  const el = h('article', { class: 'msg msg-assistant live', 'data-testid': 'message-live', 'aria-live': 'polite', 'aria-busy': 'true' });
  updateLiveNode(el, live, app);
  return el;
}

/** `app`: for the way from a call's chip to the memory panel (without it the chip has none). */
export function updateLiveNode(el: HTMLElement, live: LiveTurn, app: App | null = null): void {
  // A chip the user opened stays open while the reply goes on.
  const opened = new Set([...el.querySelectorAll<HTMLElement>('.tool-chip[open]')].map((d) => d.dataset.callId));
  // A card's answer button keeps the focus the redraw would take (the arguments' scroll too).
  const focused = document.activeElement instanceof HTMLElement && el.contains(document.activeElement) ? document.activeElement : null;
  const focusCard = focused?.closest<HTMLElement>('.approval')?.dataset.approval;
  const focusId = focused?.dataset.testid;
  const scrolled = new Map([...el.querySelectorAll<HTMLElement>('.approval-args')].map((p) => [p.closest<HTMLElement>('.approval')?.dataset.approval, p.scrollTop]));
  const approvals = live.tools.flatMap((c) => (c.approval ? [c.approval] : []));
  const answer = (id: string) => (a: ApprovalAnswer) => void app?.chat.answerToolCall(id, a);
  const waiting = !live.text && !live.reasoning && live.tools.length === 0 && !live.error;
  const usage = live.usage;
  replaceChildren(el,
    h('div', { class: 'msg-head' },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, icon('logo')),
      h('span', { class: 'who' }, t('assistant')),
      live.error ? h('span', { class: 'badge badge-error' }, t('statusError'))
        : h('span', { class: 'badge badge-streaming', 'data-testid': 'live-status' },
          live.stopping ? t('stop') + '…' : approvals.some((a) => a.decision === null) ? t('statusWaitingForYou') : t('statusStreaming')),
    ),
    reasoningNode(live.reasoning, !live.text),
    toolChipsNode(live.tools, !live.error, app),
    approvals.length ? h('div', { class: 'approvals' }, approvals.map((a) => approvalCard(a, answer(a.id)))) : null,
    waiting ? h('div', { class: 'typing' }, h('span'), h('span'), h('span')) : null,
    live.text ? liveMarkdownNode(el, live.text) : null,
    live.error ? h('div', { class: 'msg-error', role: 'alert' }, icon('warn'), h('span', null, app ? app.servers.serverError(live.error) : errorText(live.error))) : null,
    usage ? h('div', { class: 'msg-foot' }, figures({ model: null, server: null, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cached_tokens: usage.cached_tokens, ttft_ms: null, tokens_per_second: null })) : null,
  );
  for (const d of el.querySelectorAll<HTMLDetailsElement>('.tool-chip')) if (opened.has(d.dataset.callId)) d.open = true;
  for (const card of el.querySelectorAll<HTMLElement>('.approval')) {
    const args = card.querySelector<HTMLElement>('.approval-args');
    const top = scrolled.get(card.dataset.approval);
    if (args && top) args.scrollTop = top;
    if (focusCard !== card.dataset.approval) continue;
    // The button pressed is disabled while its answer goes, and gone once answered: the card keeps the focus then.
    const again = card.querySelector<HTMLButtonElement>(`[data-testid="${focusId}"]`);
    (again && !again.disabled ? again : card).focus();
  }
  const md = el.querySelector('.md');
  if (md && !live.error) {
    const last = md.lastElementChild;
    const target = last && (last.tagName === 'P' || last.tagName.startsWith('H')) ? last : md;
    target.appendChild(h('span', { class: 'cursor', 'aria-hidden': 'true' }));
  }
}
