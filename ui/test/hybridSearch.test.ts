// Hybrid search in the UI: the embeddings model and reranker are chosen in Settings and sent only
// when changed, and a search's chip says how its passages were ranked and what was left out
// (a server down or slow), in English and in Korean.

import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ToolDid } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { rankingNote, searchModelsPatch } from '../src/views/hybridSearch';
import { entryNode } from '../src/views/message';
import { fakeBackend, settingsView } from './fakeBackend';
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
    const off = { embeddings: () => null, reranker: () => ({ connection_id: 2, model: 'bge-reranker' }) };
    expect(searchModelsPatch(off, now)).toEqual({ embeddings: null, reranker: { connection_id: 2, model: 'bge-reranker' } });
  });
});

