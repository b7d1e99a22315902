// "Continue in a new chat" on a message: the server copies the way to that message (the versions
// on it only) into a new chat of the same project, with the chat's preset and model, and the new
// chat opens. The original chat is left as it was.

import type { App } from '../app';
import { h, icon } from '../lib/dom';
import { t } from '../lib/i18n';
import { toast } from './toast';

export function forkButton(app: App, messageId: number): HTMLElement {
  return h('button', {
    class: 'act', type: 'button', title: t('continueInNewChat'), 'aria-label': t('continueInNewChat'), 'data-testid': 'fork',
    onClick: () => void continueInNewChat(app, messageId),
  }, icon('branch'), h('span', { class: 'act-label' }, t('continueInNewChat')));
}

export async function continueInNewChat(app: App, messageId: number): Promise<void> {
  const session = await app.attempt(() => app.exports.forkMessage(messageId));
  if (!session) return;
  // Listed in the sidebar before it opens, so it shows as the chat open.
  if (app.sessions.entry(session.project_id)) await app.attempt(() => app.sessions.loadSessions(session.project_id));
  await app.chat.openSession(session.id);
  toast(t('continuedInNewChat'));
}
