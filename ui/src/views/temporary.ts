// Temporary chats, in the chat's header: a new chat can be made temporary before its first
// message; a temporary chat says so while it is open, with "Keep this chat" to keep it for good.
// Closing it deletes it (state/chat.ts), and Maru deletes any left when it closes or starts.

import type { App } from '../app';
import { h, icon } from '../lib/dom';
import { t } from '../lib/i18n';
import { toast } from './toast';

export function temporaryControl(app: App): HTMLElement | null {
  const s = app.chat.session;
  if (s?.temporary) {
    return h('div', { class: 'temporary-mark', role: 'note', title: t('temporaryHint'), 'data-testid': 'temporary-mark' },
      icon('eye'),
      h('span', null, t('temporaryChat')),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'keep-chat', onClick: () => void keepChat(app, s.id) }, t('keepChat')),
    );
  }
  if (s) return null;
  const on = app.chat.draftTemporary;
  return h('button', {
    class: ['btn', 'btn-ghost', 'temporary-toggle', on && 'active'], type: 'button', 'aria-pressed': String(on), title: t('temporaryHint'),
    'data-testid': 'temporary-toggle',
    onClick: () => {
      app.chat.draftTemporary = !app.chat.draftTemporary;
      app.emit('chat');
    },
  }, icon('eye'), h('span', { class: 'label' }, on ? t('temporaryChat') : t('temporary')));
}

/** Keeps the open temporary chat: it joins its project's list. */
export async function keepChat(app: App, id: number): Promise<void> {
  const kept = await app.attempt(() => app.exports.keepSession(id));
  if (!kept) return;
  app.sessions.sessionChanged(kept);
  await app.attempt(() => app.sessions.loadSessions(kept.project_id));
  void app.attempt(() => app.sessions.refreshProjects());
  toast(t('chatKept'));
}
