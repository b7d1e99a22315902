// Hybrid search in the UI: the embeddings model and reranker are chosen in Settings and sent only
// when changed, and a search's chip says how its passages were ranked and what was left out
// (a server down or slow), in English and in Korean.

import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ToolDid } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { rankingNote, searchModelsPatch, searchModelsSection } from '../src/views/hybridSearch';
import { entryNode } from '../src/views/message';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { connection, connectionRoutes, fakeBackend, settingsView } from './fakeBackend';
import { message } from './fixtures';

const CTX = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };

function chipText(did: ToolDid): string {
  const app = new App(fakeBackend({}).backend);
  const node = entryNode(app, {
    id: 1, parts: [
      message({ id: 1, role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'search_attachment', arguments: '{"query":"x"}' } }] }),
      message({ id: 2, role: 'tool', tool_call_id: 'c', tool_name: 'search_attachment', content: 'whatever the template said', tool_outcome: { did, kept: null } }),
      message({ id: 3, role: 'assistant', content: 'Done.' }),
    ],
  }, CTX);
  return node.querySelector<HTMLElement>('[data-testid=tool-chip] [data-testid=tool-result]')?.textContent ?? '';
}

const PASSAGE = { file: 'garage.md', page: null, line_start: 3, line_end: 3, text: 'The mechanic fixes the engine.' };

describe('hybrid search', () => {
  afterEach(() => setLanguage('en'));

  it('says when search by meaning was left out, and why, in both languages', () => {
    const failed: ToolDid = { kind: 'passages', passages: [PASSAGE], ranking: { meaning: { status: 'failed', message: 'connection refused' }, rerank: null } };
    expect(rankingNote({ meaning: { status: 'failed', message: 'connection refused' }, rerank: null })?.textContent).toContain('connection refused');
    expect(chipText(failed), 'the chip shows the degraded ranking').toContain('found by words only');
    setLanguage('ko');
    expect(chipText(failed)).toContain('단어로만 찾았습니다');
    setLanguage('en');
    const slow: ToolDid = { kind: 'nothing_found', query: 'x', ranking: { meaning: { status: 'used' }, rerank: { status: 'timed_out' } } };
    expect(chipText(slow), 'a reranker past its budget is named even when nothing was found').toContain('reranker did not answer in time');
    expect(rankingNote(null), 'a search by words alone (no model chosen) adds nothing').toBeNull();
  });

  it('sends the models only when the user changed them', () => {
    const now = settingsView({ embeddings: { connection_id: 1, model: 'bge-m3' } });
    const same = { embeddings: () => ({ connection_id: 1, model: 'bge-m3' }), reranker: () => null };
    expect(searchModelsPatch(same, now), 'an untouched choice is not sent again (it would re-embed nothing, but says nothing new)').toEqual({});
    const app = new App(fakeBackend({}).backend);
    const section = searchModelsSection(app, now);
    expect(searchModelsPatch(section.models, now), 'a server not listed yet stays chosen: saving other settings keeps it').toEqual({});
    const off = { embeddings: () => null, reranker: () => ({ connection_id: 2, model: 'bge-reranker' }) };
    expect(searchModelsPatch(off, now)).toEqual({ embeddings: null, reranker: { connection_id: 2, model: 'bge-reranker' } });
  });

  it('Settings chooses the embeddings model, says how far it has come, and saves only the change', async () => {
    const routes = connectionRoutes([connection({ id: 1, name: 'GPU box' })], () => [{ id: 'bge-m3', context_length: null, owned_by: null }]);
    let saved: unknown = null;
    const { backend } = fakeBackend({
      ...routes.methods,
      probeServers: async () => [],
      embeddingProgress: async () => ({ model: { connection_id: 1, model: 'bge-m3' }, embedded: 1200, passages: 5000, failure: 'connection refused' }),
      updateSettings: async (patch) => {
        saved = patch;
        return settingsView(patch as object);
      },
    });
    const app = new App(backend);
    await app.servers.loadConnections();
    app.config.applySettings(settingsView({ embeddings: { connection_id: 1, model: 'bge-m3' } }));
    openSettingsDialog(app);
    await new Promise((r) => setTimeout(r, 20));
    const dialog = document.querySelector<HTMLDialogElement>('dialog.settings-dialog')!;
    const progress = dialog.querySelector('[data-testid=embedding-progress]')!.textContent!;
    expect(progress, 'the user sees how far embedding has come').toContain('1,200 of 5,000 passages embedded');
    expect(progress, 'and why it stopped').toContain('connection refused');
    const reranker = dialog.querySelector<HTMLSelectElement>('[data-testid=reranker-server]')!;
    reranker.value = '1';
    reranker.dispatchEvent(new Event('change'));
    const model = dialog.querySelector<HTMLInputElement>('[data-testid=reranker-model]')!;
    model.value = 'bge-reranker';
    // Settings save themselves as a field changes.
    model.dispatchEvent(new Event('change', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 20));
    expect(saved, 'only the reranker changed, so only it is sent').toEqual({ reranker: { connection_id: 1, model: 'bge-reranker' } });
  });
});
