// The open chat: its header (project, title, preset picker, files, panel buttons), its messages
// with the reply being written, and the composer. Files dropped anywhere on it are attached.

import type { App } from '../app';
import type { Message, Session } from '../backend/types';
import { copyText } from '../lib/clipboard';
import { h, icon, replaceChildren } from '../lib/dom';
import { language, t } from '../lib/i18n';
import { mountComposer } from './composer';
import { mountDropZone } from './files';
import { showMenu, type MenuItem } from './menu';
import { pendingBadge } from './memoryPanel';
import { chatModelItems, chatModelLabel } from './modelMenu';
import { entryNode, filesSentWith, groupReplies, liveNode, updateLiveNode, type Entry } from './message';
import { openSettingsDialog } from './settingsDialog';
import { renameSession, sessionMenu, sessionTitle } from './sidebar';
import { temporaryControl } from './temporary';
import { toast } from './toast';
import { presetDescription, presetName } from '../lib/presets';

/** Message elements kept in the page at most, and how many more are drawn when scrolling reaches an end. */
const MAX_SHOWN = 200;
const STEP = 25;
/** Model server errors that the server settings fix. */
const SETTINGS_CODES = new Set(['invalid_url', 'unreachable', 'dns', 'timeout_connect', 'timeout_first_byte', 'timeout_idle', 'unauthorized', 'unknown_model', 'not_found', 'no_model']
  .map((c) => `model_server.${c}`));

/**
 * The chat's preset and model as one control: a button naming both (and the model's server when
 * it is not the default one), and a menu to choose either. The model is the default one, or one
 * of a server's, grouped by server (see modelMenu.ts); a name no longer listed still shows, and so
 * does a preset that no longer exists, so the control never lies. A chat not yet saved has a
 * preset only.
 */
function setupControl(app: App, presetValue: string, session: Session | null): HTMLElement {
  const preset = app.presets.find((p) => p.key === presetValue);
  const presetLabel = !presetValue ? t('basePrompt') : preset ? presetName(preset) : presetValue;
  const label = session ? chatModelLabel(app, session) : null;
  const summary = label ? t('presetAndModelIs', { preset: presetLabel, model: label.whole }) : t('presetIs', { preset: presetLabel });
  const menu = (): MenuItem[] => {
    const builtin = app.presets.filter((p) => p.builtin);
    const mine = app.presets.filter((p) => !p.builtin);
    const presetItem = (key: string, label: string, title?: string): MenuItem => ({
      label, title, icon: 'layers', checked: key === presetValue, onSelect: () => void app.setPreset(key || null),
    });
    const items: MenuItem[] = [
      { label: t('preset'), heading: true },
      presetItem('', t('basePrompt')),
      ...builtin.map((p) => presetItem(p.key, presetName(p), presetDescription(p))),
      ...(mine.length ? [{ label: t('yourPresets'), heading: true }, ...mine.map((p) => presetItem(p.key, p.name, p.description || undefined))] : []),
      ...(presetValue && !preset ? [presetItem(presetValue, presetValue)] : []),
    ];
    return session ? [...items, ...chatModelItems(app, session, () => openSettingsDialog(app, 'server'))] : items;
  };
  const open = (e: Event) => {
    const shown = showMenu(e.currentTarget as HTMLElement, menu(), t('presetAndModel'));
    if (!session) return;
    // Each server's models come in as it answers, into the menu while it is open.
    const off = app.on('servers', () => (shown.open ? shown.update(menu()) : off()));
    void app.loadModelLists();
  };
  return h('button', {
    class: 'btn setup-btn', type: 'button', 'data-testid': 'chat-setup', 'aria-haspopup': 'menu',
    'aria-label': summary, title: summary, onClick: open,
  },
    icon('layers'),
    h('span', { class: 'setup-text' },
      h('span', { class: 'setup-preset', 'data-testid': 'chat-preset' }, presetLabel),
      label ? h('span', { class: 'setup-line' },
        h('span', { class: 'setup-model', 'data-testid': 'chat-model' }, label.model),
        label.server ? h('span', { class: 'setup-server', 'data-testid': 'chat-server' }, label.server) : null) : null),
    h('span', { class: 'setup-caret' }, icon('chevron')),
  );
}

export function mountChat(app: App, root: HTMLElement, toggleSidebar: () => void): void {
  const head = h('header', { class: 'chat-head' });
  const list = h('div', { class: 'messages', 'data-testid': 'messages' });
  const scroller = h('div', { class: 'scroller' }, list);
  // While a reply is written and the end is out of view: a way back to it, which follows again.
  const jumpLabel = h('span', null, t('jumpToLatest'));
  const jump = h('button', { class: 'btn jump-latest', type: 'button', hidden: true, 'data-testid': 'jump-latest', onClick: () => jumpToLatest() }, icon('chevron'), jumpLabel);
  const composerRoot = h('footer', { class: 'composer-wrap' });
  root.append(head, h('div', { class: 'scroll-area' }, scroller, jump), composerRoot);
  const composer = mountComposer(app, composerRoot);
  mountDropZone(root, () => t('dropFiles'), (files) => void app.attachToChat(files));

  let editingId: number | null = null;
  let liveEl: HTMLElement | null = null;
  let frame = 0;
  let shownSession: number | null | undefined;

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
  const toBottom = () => {
    scroller.scrollTop = scroller.scrollHeight;
  };
  /** Shown while a reply is being written and its end is out of view (or not drawn: older messages are read). */
  const updateJump = () => {
    jump.hidden = !app.currentLive() || (endId === null && nearBottom());
    jumpLabel.textContent = t('jumpToLatest');
  };
  const jumpToLatest = () => {
    if (endId !== null) {
      // The window goes back to the newest messages (and the reply being written).
      endId = null;
      startId = null;
      renderList();
    }
    toBottom();
    updateJump();
  };
  scroller.addEventListener('scroll', () => updateJump(), { passive: true });

  // Copy buttons inside rendered code blocks.
  list.addEventListener('click', async (e) => {
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
  });

  let headSig = '';
  const renderHead = () => {
    const s = app.session;
    const project = app.currentProject();
    const presetValue = s ? s.preset ?? '' : app.draftPreset ?? '';
    // Redrawn only when something it shows changed (a redraw would close an open picker).
    const files = app.chatFiles();
    const fileCount = files.own.length + files.project.length;
    const server = s ? app.chatConnection(s) : undefined;
    const sig = JSON.stringify([s?.id, s?.title, s?.model, s?.connection_id, server?.name, server?.is_default, app.settings?.model, presetValue, project?.id, project?.name, app.panel, app.presets.map((p) => [p.key, p.name]), t('preset'), files.own.length, files.project.length, app.pendingCount, s?.temporary, app.chat.draftTemporary]);
    if (sig === headSig) return;
    headSig = sig;
    document.title = s ? `${sessionTitle(s)} · ${t('appName')}` : t('appName');
    replaceChildren(head,
      h('button', { class: 'icon-btn sidebar-toggle', type: 'button', 'aria-label': t('projects'), onClick: toggleSidebar }, icon('menu')),
      h('div', { class: 'crumbs' },
        project ? h('span', { class: 'crumb-project', 'data-testid': 'chat-project', title: app.projectName(project) }, icon('folder'), h('span', null, app.projectName(project))) : null,
        h('span', { class: 'crumb-sep' }, '/'),
        s
          ? h('button', { class: 'chat-title', type: 'button', title: t('rename'), 'data-testid': 'chat-title', onClick: () => void renameSession(app, s) }, sessionTitle(s),
              s.imported_at != null ? h('span', { class: 'copy-badge', title: t('importedCopyHint') }, t('importedCopy')) : null)
          : h('span', { class: 'chat-title draft' }, t('newChat')),
      ),
      h('div', { class: 'head-actions' },
        temporaryControl(app),
        setupControl(app, presetValue, s),
        h('button', {
          class: ['btn', 'btn-ghost', 'files-btn', app.panel === 'files' && 'active'], type: 'button', 'data-testid': 'open-files',
          'aria-pressed': String(app.panel === 'files'),
          'aria-label': t('filesCount', { n: fileCount, own: files.own.length, project: files.project.length }),
          title: t('filesCount', { n: fileCount, own: files.own.length, project: files.project.length }),
          onClick: () => app.togglePanel('files'),
        }, icon('paperclip'), h('span', { class: 'label' }, t('files')), h('span', { class: ['files-count', fileCount > 0 && 'some'], 'data-testid': 'files-count' }, String(fileCount))),
        h('button', {
          class: ['btn', 'btn-ghost', app.panel === 'context' && 'active'], type: 'button', 'data-testid': 'open-context',
          'aria-pressed': String(app.panel === 'context'), title: t('contextInspector'), onClick: () => app.togglePanel('context'),
        }, icon('eye'), h('span', { class: 'label' }, t('context'))),
        h('button', {
          class: ['btn', 'btn-ghost', 'memory-btn', app.panel === 'memory' && 'active'], type: 'button', 'data-testid': 'open-memory',
          'aria-pressed': String(app.panel === 'memory'), title: app.pendingCount ? t('memoryPending', { n: app.pendingCount }) : t('memoryTitle'),
          onClick: () => app.togglePanel('memory'),
        }, icon('brain'), h('span', { class: 'label' }, t('memory')), pendingBadge(app)),
        s ? h('button', {
          class: 'icon-btn chat-menu-btn', type: 'button', 'aria-label': t('chatMenu'), title: t('chatMenu'), 'data-testid': 'chat-menu', 'aria-haspopup': 'menu',
          onClick: (e: Event) => showMenu(e.currentTarget as HTMLElement, sessionMenu(app, s, e.currentTarget as HTMLElement)),
        }, icon('more')) : null,
      ),
    );
  };

  // The message list is patched, not redrawn: each message keeps its element while what it shows
  // is unchanged, so a send, a reply's end or an older page touches only the messages concerned.
  // At most MAX_SHOWN messages are in the page: the window of those drawn moves as the user
  // scrolls (sentinels at both ends), and older pages load on their own near the top.
  const drawn = new Map<number, { el: HTMLElement; key: unknown[] }>();
  /** First message drawn (null: counted back from the end), last one (null: the window follows the end). */
  let startId: number | null = null;
  let endId: number | null = null;
  let extending = false;
  const olderButton = h('button', { class: 'btn btn-ghost btn-small', type: 'button', onClick: () => void extendTop() }, t('loadOlder'));
  const topSentinel = h('div', { class: 'older', 'data-testid': 'older' }, olderButton);
  const bottomSentinel = h('div', { class: 'newer', 'aria-hidden': 'true' });

  /** The open chat's entries: a reply with all its rounds (tool calls, results, what followed) is one. */
  const shown = (): Entry[] => groupReplies(app.shownMessages());
  /** The entry that is, or holds, message `id`. */
  const indexOf = (visible: Entry[], id: number | null) => (id === null ? -1 : visible.findIndex((e) => e.id === id || e.parts.some((m) => m.id === id)));

  /** The drawn window [start, end) over the messages shown; at most MAX_SHOWN, the newest kept when following the end. */
  const bounds = (visible: Entry[]): [number, number] => {
    const n = visible.length;
    let end = endId === null ? n : indexOf(visible, endId) + 1;
    if (end <= 0) {
      endId = null;
      end = n;
    }
    let start = indexOf(visible, startId);
    if (start === -1 || start >= end) start = Math.max(0, end - MAX_SHOWN);
    if (end - start > MAX_SHOWN) start = end - MAX_SHOWN;
    startId = visible[start]?.id ?? null;
    return [start, end];
  };

  /** The first drawn message in view and where it is, to keep it still while the list changes. */
  const viewAnchor = (): { el: HTMLElement; top: number } | null => {
    const top = scroller.getBoundingClientRect().top;
    for (let el = topSentinel.nextElementSibling; el && el !== bottomSentinel; el = el.nextElementSibling) {
      const r = el.getBoundingClientRect();
      if (r.bottom > top) return { el: el as HTMLElement, top: r.top };
    }
    return null;
  };

  const renderList = () => {
    const s = app.session;
    const opened = shownSession !== (s?.id ?? null);
    if (opened) {
      for (const d of drawn.values()) d.el.remove();
      drawn.clear();
      startId = endId = null;
      liveEl = null;
    }
    shownSession = s?.id ?? null;
    const live = app.currentLive();
    const visible = shown();
    if (editingId !== null && !visible.some((e) => e.id === editingId)) editingId = null;

    if (visible.length === 0 && !live) {
      liveEl = null;
      drawn.clear();
      const project = app.currentProject();
      replaceChildren(list, app.loadingMessages && s
        ? h('div', { class: 'empty' }, t('loading'))
        : h('div', { class: 'empty' },
            h('div', { class: 'empty-mark', title: '마루' }, icon('logo')),
            h('h2', null, t('emptyTitle')),
            h('p', null, t('emptyBody')),
            project && !project.is_default ? h('p', { class: 'empty-project' }, icon('folder'), t('emptyInProject', { project: project.name })) : null,
          ));
      return;
    }
    // A message just sent (not saved yet) brings the window back to the end.
    const newest = visible[visible.length - 1];
    const sent = newest && newest.id < 0 && !drawn.has(newest.id);
    if (sent && endId !== null) {
      // Far from the end: only the newest messages are drawn, not everything in between.
      endId = null;
      startId = visible[Math.max(0, visible.length - 2 * STEP)].id;
    }
    // A message a search result points at, outside the window: the window moves to it.
    const focusAt = indexOf(visible, app.focusMessageId);
    // Shown as part of its reply: the reply is what is brought into view.
    if (focusAt !== -1) app.focusMessageId = visible[focusAt].id;
    if (focusAt !== -1 && !drawn.has(visible[focusAt].id)) {
      startId = visible[Math.max(0, focusAt - STEP)].id;
      endId = focusAt + STEP >= visible.length ? null : visible[focusAt + STEP].id;
    }
    const [start, end] = bounds(visible);
    const following = endId === null;
    const stick = opened || sent || (following && nearBottom());
    const anchor = stick ? null : viewAnchor();

    const lang = language();
    const last = visible[visible.length - 1];
    const wanted: HTMLElement[] = [];
    const keep = new Set<number>();
    const chatFiles = app.chatFiles();
    const sentFiles = filesSentWith(visible, chatFiles.own, app.olderBefore === null);
    const fileNames = new Map([...chatFiles.own, ...chatFiles.project].map((a) => [a.id, a.name]));
    for (let i = start; i < end; i++) {
      const entry = visible[i];
      const m = entry.parts[0];
      const regenerable = !live && entry === last && m.id > 0 && (m.role === 'assistant' || m.role === 'user');
      const editing = editingId === m.id;
      const files = sentFiles.get(m.id);
      // A user's message shows its files and images by name: drawn again when they change.
      const filesKey = m.role === 'user' ? JSON.stringify([files?.map((a) => [a.id, a.name, a.size]), m.images.map((id) => fileNames.get(id) ?? null)]) : '';
      // What the element shows besides the message itself (the same object while unchanged);
      // a turn running disables buttons: in the message edited, the one Regenerate answers and those
      // with versions they are drawn again, elsewhere (Edit, marked `idle-only`) switched below.
      const tail = entry.parts[entry.parts.length - 1];
      const key = [regenerable, editing, (editing || regenerable || m.versions.length > 1) && !!live, lang, app.replyErrors.get(tail.id), filesKey, ...entry.parts];
      let d = drawn.get(m.id);
      if (!d || d.key.length !== key.length || d.key.some((v, j) => v !== key[j])) {
        d?.el.remove();
        d = {
          key,
          el: entryNode(app, entry, {
            regenerable, busy: !!live, editing, sentFiles: files,
            onEdit: () => {
              editingId = m.id;
              renderList();
            },
            onCancelEdit: () => {
              editingId = null;
              renderList();
            },
          }),
        };
        offerSettings(d.el, tail);
        drawn.set(m.id, d);
      }
      keep.add(m.id);
      wanted.push(d.el);
    }
    for (const [id, d] of drawn) {
      if (keep.has(id)) continue;
      d.el.remove();
      drawn.delete(id);
    }
    const showLive = live && following;
    if (!showLive) liveEl = null;
    else if (!liveEl) liveEl = liveNode(live, app);
    if (liveEl) wanted.push(liveEl);

    // In order, moving only what is out of place; whatever else is there goes.
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
    for (const b of list.querySelectorAll<HTMLButtonElement>('.idle-only')) b.disabled = !!live;
    const more = start > 0 || app.olderBefore !== null;
    topSentinel.hidden = !more;
    olderButton.textContent = t('loadOlder');

    if (stick) toBottom();
    else if (anchor && anchor.el.isConnected) scroller.scrollTop += anchor.el.getBoundingClientRect().top - anchor.top;
    showFocused();
    updateJump();
  };

  /** A reply that failed for a reason the settings fix (address, key, model, timeouts): a button to them. */
  const offerSettings = (el: HTMLElement, m: Message) => {
    const code = m.error_code ?? app.replyErrors.get(m.id)?.code;
    const box = el.querySelector('.msg-error');
    if (!box || !code || !SETTINGS_CODES.has(code)) return;
    box.append(h('button', {
      class: 'btn btn-small', type: 'button', 'data-testid': 'reply-server-settings',
      onClick: () => openSettingsDialog(app, 'server'),
    }, icon('gear'), t('serverSettings')));
  };

  /** Near the top: more of the loaded messages are drawn, or else the older page is loaded. */
  const extendTop = async () => {
    if (extending || !app.session) return;
    extending = true;
    let changed = false;
    try {
      let visible = shown();
      let [start, end] = bounds(visible);
      if (start === 0 && app.olderBefore !== null) {
        const sid = app.session.id;
        await app.loadOlder();
        if (app.session?.id !== sid) return;
        visible = shown();
        [start, end] = bounds(visible);
      }
      if (start === 0) return;
      const from = Math.max(0, start - STEP);
      startId = visible[from].id;
      // The far end goes, so that the page stays small.
      if (end - from > MAX_SHOWN) endId = visible[from + MAX_SHOWN - 1].id;
      renderList();
      changed = true;
    } finally {
      extending = false;
    }
    if (changed) recheck();
  };

  /** Near the bottom of a window that does not reach the end: newer messages are drawn again. */
  const extendBottom = () => {
    if (endId === null) return;
    const visible = shown();
    const [start, end] = bounds(visible);
    const to = Math.min(visible.length, end + STEP);
    endId = to >= visible.length ? null : visible[to - 1].id;
    if (to - start > MAX_SHOWN) startId = visible[to - MAX_SHOWN].id;
    renderList();
    recheck();
  };

  const observer = typeof IntersectionObserver === 'undefined' ? null : new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      if (e.target === topSentinel && !topSentinel.hidden) void extendTop();
      else if (e.target === bottomSentinel) extendBottom();
    }
  }, { root: scroller, rootMargin: '600px 0px' });
  observer?.observe(topSentinel);
  observer?.observe(bottomSentinel);
  /** Observed again, so that a sentinel still in view after a change is reported once more. */
  const recheck = () => {
    if (!observer) return;
    for (const el of [topSentinel, bottomSentinel]) {
      observer.unobserve(el);
      observer.observe(el);
    }
  };

  /** A message a search result pointed at: brought into view and flashed once it is shown. */
  const showFocused = () => {
    const id = app.focusMessageId;
    if (id === null) return;
    const el = list.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
    if (!el) return;
    app.focusMessageId = null;
    el.scrollIntoView({ block: 'center' });
    el.classList.add('flash');
    window.setTimeout(() => el.classList.remove('flash'), 2600);
  };

  const renderLive = () => {
    const live = app.currentLive();
    if (!live || !liveEl) {
      // A reply being written while older messages are read: drawn once the window reaches the end.
      if (live && endId !== null) return;
      renderList();
      return;
    }
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const current = app.currentLive();
      if (!current || !liveEl) return;
      const stick = nearBottom();
      updateLiveNode(liveEl, current, app);
      if (stick) toBottom();
      updateJump();
    });
  };

  app.on('chat', () => {
    renderHead();
    renderList();
  });
  app.on('live', renderLive);
  app.on('presets', renderHead);
  app.on('panel', renderHead);
  app.on('sidebar', renderHead);
  app.on('files', renderHead);
  // A message of the user's names the files and images it went with.
  app.on('files', () => renderList());
  app.on('memories', renderHead);
  // The chat's server's name, once the servers are read (or one is renamed).
  app.on('servers', renderHead);
  renderHead();
  renderList();
  composer.focus();
}
