// The open chat's messages with the reply being written, and the way back to its end.
//
// The list is patched, not redrawn: each message keeps its element while what it shows is
// unchanged, so a send, a reply's end or an older page touches only the messages concerned. At
// most MAX_SHOWN messages are in the page: the window of those drawn moves as the user scrolls
// (sentinels at both ends), and older pages load on their own near the top.

import type { App } from '../app';
import type { Message } from '../backend/types';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren } from '../lib/dom';
import { language, t } from '../lib/i18n';
import { loadMarkdownFor, markdownReady } from '../lib/markdown';
import { acceptedProposals, entryNode, filesSentWith, groupReplies, liveNode, updateLiveNode, type Entry } from './message';
import { openSettingsDialog } from './settingsLink';
import { toast } from './toast';

/** Message elements kept in the page at most, and how many more are drawn when scrolling reaches an end. */
const MAX_SHOWN = 200;
const STEP = 25;
/** Model server errors that the server settings fix. */
const SETTINGS_CODES = new Set(['invalid_url', 'unreachable', 'dns', 'timeout_connect', 'timeout_first_byte', 'timeout_idle', 'unauthorized', 'unknown_model', 'not_found', 'no_model']
  .map((c) => `model_server.${c}`));

/** The entry that is, or holds, message `id`. */
function indexOf(visible: Entry[], id: number | null): number {
  return id === null ? -1 : visible.findIndex((e) => e.id === id || e.parts.some((m) => m.id === id));
}

export class MessageList {
  /** The scrolling area with the list and the jump button, for the chat to place. */
  readonly area: HTMLElement;

  private readonly list = h('div', { class: 'messages', 'data-testid': 'messages' });
  private readonly scroller = h('div', { class: 'scroller' }, this.list);
  // While a reply is written and the end is out of view: a way back to it, which follows again.
  private readonly jumpLabel = h('span', null, t('jumpToLatest'));
  private readonly jump = h('button', {
    class: 'btn jump-latest', type: 'button', hidden: true, 'data-testid': 'jump-latest', onClick: () => this.jumpToLatest(),
  }, icon('chevron'), this.jumpLabel);
  private readonly olderButton = h('button', { class: 'btn btn-ghost btn-small', type: 'button', onClick: () => void this.extendTop() }, t('loadOlder'));
  private readonly topSentinel = h('div', { class: 'older', 'data-testid': 'older' }, this.olderButton);
  private readonly bottomSentinel = h('div', { class: 'newer', 'aria-hidden': 'true' });
  private readonly observer: IntersectionObserver | null;

  private readonly drawn = new Map<number, { el: HTMLElement; key: unknown[] }>();
  /** First message drawn (null: counted back from the end), last one (null: the window follows the end). */
  private startId: number | null = null;
  private endId: number | null = null;
  private extending = false;
  private editingId: number | null = null;
  private liveEl: HTMLElement | null = null;
  private frame = 0;
  private shownSession: number | null | undefined;
  /** What the replies need loading (the renderer, KaTeX, highlight.js): the list is drawn once it is there. */
  private loading: Promise<void> | null = null;

  constructor(private readonly app: App) {
    this.area = h('div', { class: 'scroll-area' }, this.scroller, this.jump);
    this.scroller.addEventListener('scroll', () => this.updateJump(), { passive: true });
    this.list.addEventListener('click', (e) => void this.copyCode(e));
    this.observer = typeof IntersectionObserver === 'undefined' ? null : new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        if (e.target === this.topSentinel && !this.topSentinel.hidden) void this.extendTop();
        else if (e.target === this.bottomSentinel) this.extendBottom();
      }
    }, { root: this.scroller, rootMargin: '600px 0px' });
    this.observer?.observe(this.topSentinel);
    this.observer?.observe(this.bottomSentinel);
  }

  /** Copy buttons inside rendered code blocks. */
  private async copyCode(e: Event): Promise<void> {
    const btn = (e.target as HTMLElement).closest('.copy-code') as HTMLButtonElement | null;
    if (!btn) return;
    const code = btn.closest('.code-block')?.querySelector('code');
    try {
      await copyText(code?.textContent ?? '');
      btn.textContent = t('copied');
      setTimeout(() => (btn.textContent = t('copy')), 1500);
    } catch (err) {
      toast(String(err), 'error');
    }
  }

  private nearBottom(): boolean {
    return this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < 120;
  }

  private toBottom(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  /** Shown while a reply is being written and its end is out of view (or not drawn: older messages are read). */
  private updateJump(): void {
    this.jump.hidden = !this.app.chat.currentLive() || (this.endId === null && this.nearBottom());
    this.jumpLabel.textContent = t('jumpToLatest');
  }

  private jumpToLatest(): void {
    if (this.endId !== null) {
      // The window goes back to the newest messages (and the reply being written).
      this.endId = null;
      this.startId = null;
      this.render();
    }
    this.toBottom();
    this.updateJump();
  }

  /** The open chat's entries: a reply with all its rounds (tool calls, results, what followed) is one. */
  private shown(): Entry[] {
    return groupReplies(this.app.chat.shownMessages());
  }

  /** The drawn window [start, end) over the messages shown; at most MAX_SHOWN, the newest kept when following the end. */
  private bounds(visible: Entry[]): [number, number] {
    const n = visible.length;
    let end = this.endId === null ? n : indexOf(visible, this.endId) + 1;
    if (end <= 0) {
      this.endId = null;
      end = n;
    }
    let start = indexOf(visible, this.startId);
    if (start === -1 || start >= end) start = Math.max(0, end - MAX_SHOWN);
    if (end - start > MAX_SHOWN) start = end - MAX_SHOWN;
    this.startId = visible[start]?.id ?? null;
    return [start, end];
  }

  /** The first drawn message in view and where it is, to keep it still while the list changes. */
  private viewAnchor(): { el: HTMLElement; top: number } | null {
    const top = this.scroller.getBoundingClientRect().top;
    for (let el = this.topSentinel.nextElementSibling; el && el !== this.bottomSentinel; el = el.nextElementSibling) {
      const r = el.getBoundingClientRect();
      if (r.bottom > top) return { el: el as HTMLElement, top: r.top };
    }
    return null;
  }

  /**
   * Whether the open chat's replies (all those loaded, not only those in the window: scrolling
   * never waits) and the reply being written can be drawn now. Else what they need is loaded and
   * the list drawn once it is, in one pass: a reply is never shown as raw text first.
   */
  private rendererReady(): boolean {
    const live = this.app.chat.currentLive();
    const texts = this.app.chat.shownMessages().filter((m) => m.role === 'assistant').map((m) => m.content);
    if (live?.text) texts.push(live.text);
    if (markdownReady(texts)) return true;
    this.loadParts(texts);
    return false;
  }

  /** Loads what `texts` need (after the load under way, if any), then draws the list and the
   *  reply being written again: each asks again for what it still lacks. */
  private loadParts(texts: string[]): void {
    this.loading ??= loadMarkdownFor(texts).then(() => {
      this.loading = null;
      this.render();
      if (this.app.chat.currentLive()) this.renderLive();
    });
  }

  /** Draws the list as the state has it now (once what its replies need is loaded). */
  render(): void {
    if (!this.rendererReady()) return;
    const opened = this.noteOpened();
    const live = this.app.chat.currentLive();
    const visible = this.shown();
    if (this.editingId !== null && !visible.some((e) => e.id === this.editingId)) this.editingId = null;
    if (visible.length === 0 && !live) {
      this.renderEmpty();
      return;
    }
    const sent = this.placeWindow(visible);
    const [start, end] = this.bounds(visible);
    const following = this.endId === null;
    const stick = opened || sent || (following && this.nearBottom());
    const anchor = stick ? null : this.viewAnchor();

    const wanted = this.entryElements(visible, start, end, !!live);
    const showLive = live && following;
    if (!showLive) this.liveEl = null;
    else if (!this.liveEl) this.liveEl = liveNode(live, this.app);
    if (this.liveEl) wanted.push(this.liveEl);
    this.arrange(wanted);
    for (const b of this.list.querySelectorAll<HTMLButtonElement>('.idle-only')) b.disabled = !!live;
    this.topSentinel.hidden = !(start > 0 || this.app.chat.olderBefore !== null);
    this.olderButton.textContent = t('loadOlder');

    if (stick) this.toBottom();
    else if (anchor && anchor.el.isConnected) this.scroller.scrollTop += anchor.el.getBoundingClientRect().top - anchor.top;
    this.showFocused();
    this.updateJump();
  }

  /** Another chat than the one drawn: everything drawn goes. Whether it was. */
  private noteOpened(): boolean {
    const id = this.app.chat.session?.id ?? null;
    const opened = this.shownSession !== id;
    if (opened) {
      for (const d of this.drawn.values()) d.el.remove();
      this.drawn.clear();
      this.startId = this.endId = null;
      this.liveEl = null;
    }
    this.shownSession = id;
    return opened;
  }

  /** No message: the chat's welcome (or that it is loading). */
  private renderEmpty(): void {
    const app = this.app;
    this.liveEl = null;
    this.drawn.clear();
    const project = app.chat.currentProject();
    replaceChildren(this.list, app.chat.loadingMessages && app.chat.session
      ? h('div', { class: 'empty' }, t('loading'))
      : h('div', { class: 'empty' },
          h('div', { class: 'empty-mark', title: '마루' }, icon('logo')),
          h('h2', null, t('emptyTitle')),
          h('p', null, t('emptyBody')),
          project && !project.is_default ? h('p', { class: 'empty-project' }, icon('folder'), t('emptyInProject', { project: project.name })) : null,
        ));
  }

  /** Moves the window to a message just sent, or to one a search result points at. Whether one was just sent. */
  private placeWindow(visible: Entry[]): boolean {
    const chat = this.app.chat;
    // A message just sent (not saved yet) brings the window back to the end.
    const newest = visible[visible.length - 1];
    const sent = !!newest && newest.id < 0 && !this.drawn.has(newest.id);
    if (sent && this.endId !== null) {
      // Far from the end: only the newest messages are drawn, not everything in between.
      this.endId = null;
      this.startId = visible[Math.max(0, visible.length - 2 * STEP)].id;
    }
    // A message a search result points at, outside the window: the window moves to it.
    const focusAt = indexOf(visible, chat.focusMessageId);
    // Shown as part of its reply: the reply is what is brought into view.
    if (focusAt !== -1) chat.focusMessageId = visible[focusAt].id;
    if (focusAt !== -1 && !this.drawn.has(visible[focusAt].id)) {
      this.startId = visible[Math.max(0, focusAt - STEP)].id;
      this.endId = focusAt + STEP >= visible.length ? null : visible[focusAt + STEP].id;
    }
    return sent;
  }

  /** The elements of the entries in [start, end), drawn again only when what they show changed;
   *  those no longer in the window go. */
  private entryElements(visible: Entry[], start: number, end: number, busy: boolean): HTMLElement[] {
    const app = this.app;
    const lang = language();
    const last = visible[visible.length - 1];
    const wanted: HTMLElement[] = [];
    const keep = new Set<number>();
    const chatFiles = app.attachments.chatFiles();
    const sentFiles = filesSentWith(visible, chatFiles.own, app.chat.olderBefore === null);
    const fileNames = new Map([...chatFiles.own, ...chatFiles.project].map((a) => [a.id, a.name]));
    for (let i = start; i < end; i++) {
      const entry = visible[i];
      const m = entry.parts[0];
      const regenerable = !busy && entry === last && m.id > 0 && (m.role === 'assistant' || m.role === 'user');
      const editing = this.editingId === m.id;
      const files = sentFiles.get(m.id);
      // A user's message shows its files and images by name: drawn again when they change.
      const filesKey = m.role === 'user' ? JSON.stringify([files?.map((a) => [a.id, a.name, a.size]), m.images.map((id) => fileNames.get(id) ?? null)]) : '';
      // What the element shows besides the message itself (the same object while unchanged);
      // a turn running disables buttons: in the message edited, the one Regenerate answers and those
      // with versions they are drawn again, elsewhere (Edit, marked `idle-only`) switched below.
      const tail = entry.parts[entry.parts.length - 1];
      const key = [regenerable, editing, (editing || regenerable || m.versions.length > 1) && busy, lang, app.chat.replyErrors.get(tail.id), filesKey, acceptedProposals(entry.parts, app), ...entry.parts];
      let d = this.drawn.get(m.id);
      if (!d || d.key.length !== key.length || d.key.some((v, j) => v !== key[j])) {
        d?.el.remove();
        d = { key, el: this.entryElement(entry, { regenerable, busy, editing, sentFiles: files }) };
        this.offerSettings(d.el, tail);
        this.drawn.set(m.id, d);
      }
      keep.add(m.id);
      wanted.push(d.el);
    }
    for (const [id, d] of this.drawn) {
      if (keep.has(id)) continue;
      d.el.remove();
      this.drawn.delete(id);
    }
    return wanted;
  }

  private entryElement(entry: Entry, opts: Pick<Parameters<typeof entryNode>[2], 'regenerable' | 'busy' | 'editing' | 'sentFiles'>): HTMLElement {
    const id = entry.parts[0].id;
    return entryNode(this.app, entry, {
      ...opts,
      onEdit: () => {
        this.editingId = id;
        this.render();
      },
      onCancelEdit: () => {
        this.editingId = null;
        this.render();
      },
    });
  }

  /** Puts `wanted` between the sentinels in order, moving only what is out of place; whatever else is there goes. */
  private arrange(wanted: HTMLElement[]): void {
    const { list, topSentinel, bottomSentinel } = this;
    if (topSentinel.parentNode !== list) list.prepend(topSentinel);
    if (bottomSentinel.parentNode !== list) list.append(bottomSentinel);
    let cursor = topSentinel.nextSibling;
    for (const el of wanted) {
      if (cursor === el) cursor = el.nextSibling;
      else list.insertBefore(el, cursor);
    }
    while (cursor && cursor !== bottomSentinel) {
      const next = cursor.nextSibling;
      cursor.remove();
      cursor = next;
    }
  }

  /** A reply that failed for a reason the settings fix (address, key, model, timeouts): a button to them. */
  private offerSettings(el: HTMLElement, m: Message): void {
    const code = m.error_code ?? this.app.chat.replyErrors.get(m.id)?.code;
    const box = el.querySelector('.msg-error');
    if (!box || !code || !SETTINGS_CODES.has(code)) return;
    box.append(h('button', {
      class: 'btn btn-small', type: 'button', 'data-testid': 'reply-server-settings',
      onClick: () => openSettingsDialog(this.app, 'server'),
    }, icon('gear'), t('serverSettings')));
  }

  /** Near the top: more of the loaded messages are drawn, or else the older page is loaded. */
  private async extendTop(): Promise<void> {
    const chat = this.app.chat;
    if (this.extending || !chat.session) return;
    this.extending = true;
    let changed = false;
    try {
      let visible = this.shown();
      let [start, end] = this.bounds(visible);
      if (start === 0 && chat.olderBefore !== null) {
        const sid = chat.session.id;
        await chat.loadOlder();
        if (chat.session?.id !== sid) return;
        visible = this.shown();
        [start, end] = this.bounds(visible);
      }
      if (start === 0) return;
      const from = Math.max(0, start - STEP);
      this.startId = visible[from].id;
      // The far end goes, so that the page stays small.
      if (end - from > MAX_SHOWN) this.endId = visible[from + MAX_SHOWN - 1].id;
      this.render();
      changed = true;
    } finally {
      this.extending = false;
    }
    if (changed) this.recheck();
  }

  /** Near the bottom of a window that does not reach the end: newer messages are drawn again. */
  private extendBottom(): void {
    if (this.endId === null) return;
    const visible = this.shown();
    const [start, end] = this.bounds(visible);
    const to = Math.min(visible.length, end + STEP);
    this.endId = to >= visible.length ? null : visible[to - 1].id;
    if (to - start > MAX_SHOWN) this.startId = visible[to - MAX_SHOWN].id;
    this.render();
    this.recheck();
  }

  /** Observed again, so that a sentinel still in view after a change is reported once more. */
  private recheck(): void {
    if (!this.observer) return;
    for (const el of [this.topSentinel, this.bottomSentinel]) {
      this.observer.unobserve(el);
      this.observer.observe(el);
    }
  }

  /** A message a search result pointed at: brought into view and flashed once it is shown. */
  private showFocused(): void {
    const chat = this.app.chat;
    const id = chat.focusMessageId;
    if (id === null) return;
    const el = this.list.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
    if (!el) return;
    chat.focusMessageId = null;
    el.scrollIntoView({ block: 'center' });
    el.classList.add('flash');
    window.setTimeout(() => el.classList.remove('flash'), 2600);
  }

  /** The reply being written, patched at most once a frame (the whole list when it is not drawn yet). */
  renderLive(): void {
    const live = this.app.chat.currentLive();
    if (!live || !this.liveEl) {
      // A reply being written while older messages are read: drawn once the window reaches the end.
      if (live && this.endId !== null) return;
      this.render();
      return;
    }
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const current = this.app.chat.currentLive();
      if (!current || !this.liveEl) return;
      // Math or code just began (or the renderer is not there yet): drawn again once it is.
      if (!markdownReady([current.text])) {
        this.loadParts([current.text]);
        return;
      }
      const stick = this.nearBottom();
      updateLiveNode(this.liveEl, current, this.app);
      if (stick) this.toBottom();
      this.updateJump();
    });
  }
}
