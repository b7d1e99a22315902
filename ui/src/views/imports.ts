// Bringing chats in (Settings → Data): a chat Maru exported as JSON opens at once; ChatGPT's or
// Claude's export is checked by the server and then stored in the background, while a small
// panel in the corner shows how far it is. The app stays usable: the panel is not a dialog.

import type { App } from '../app';
import type { ImportJob, Session } from '../backend/types';
import { h } from '../lib/dom';
import { count } from '../lib/format';
import { errorText, t } from '../lib/i18n';
import { toast } from './toast';

/** How often the panel asks how far an import is. */
export const POLL_MS = 400;

const SOURCE = { chatgpt: 'ChatGPT', claude: 'Claude' } as const;

/** Sends the file the user chose to `projectId` (null: where the server puts it), then opens the
 *  chat, or follows the export's import until it ends. */
export async function importFile(app: App, file: File, projectId: number | null): Promise<void> {
  const imported = await app.attempt(() => app.exports.importFile(file, projectId, file.name));
  if (!imported) return;
  if ('state' in imported) {
    await app.attempt(() => app.sessions.refreshProjects());
    await follow(app, imported);
    return;
  }
  const session: Session = imported;
  toast(t('chatImported', { title: session.title || t('untitled') }));
  await app.attempt(() => app.reload());
  await app.chat.openSession(session.id);
}

/** What an import did, in a sentence. */
export function importSummary(job: ImportJob): string {
  const source = SOURCE[job.source];
  const parts = [t('importDone', { n: job.imported, source })];
  if (job.already_here) parts.push(t('importAlreadyHere', { n: job.already_here }));
  if (job.skipped_messages) parts.push(t('importMessagesLeftOut', { n: job.skipped_messages }));
  return parts.join(' · ');
}

/** The corner panel of one import: a bar and counts while it runs, then a notice of what came
 *  in, with the project open in the sidebar. */
async function follow(app: App, started: ImportJob): Promise<void> {
  const bar = h('progress', { max: Math.max(1, started.conversations), value: 0 });
  const text = h('span', { class: 'import-progress-text' });
  const panel = h('div', { class: 'import-progress', role: 'status', 'data-testid': 'import-progress', 'data-job-id': String(started.id) }, text, bar);
  document.body.appendChild(panel);
  const show = (job: ImportJob) => {
    bar.value = job.done;
    text.textContent = t('importProgress', { source: SOURCE[job.source], done: count(job.done), total: count(job.conversations) });
  };
  show(started);
  let job = started;
  while (job.state === 'running') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const now = await app.attempt(() => app.exports.importJob(started.id));
    if (!now) break;
    job = now;
    show(job);
  }
  panel.remove();
  await app.attempt(() => app.sessions.refreshProjects());
  if (app.sessions.expandProject(job.project_id)) await app.attempt(() => app.sessions.loadSessions(job.project_id));
  app.emit('sidebar');
  if (job.state === 'failed' && job.error) toast(t('importStopped', { error: errorText(job.error) }), 'error');
  else toast(importSummary(job), 'info', { ms: 8000 });
}
