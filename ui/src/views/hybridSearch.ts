// Hybrid search as the user sees it: in Settings, the embeddings model and the reranker (each a
// server and a model name, off until chosen), and under a search's tool call, how its passages
// were ranked and what was left out (a server down or slow).

import type { App } from '../app';
import type { ModelChoice, SearchRanking, SettingsView } from '../backend/types';
import { h } from '../lib/dom';
import { count } from '../lib/format';
import { t, type Key } from '../lib/i18n';

/** What the section holds, read when Settings saves. */
export interface SearchModels {
  embeddings: () => ModelChoice | null;
  reranker: () => ModelChoice | null;
}

/** The "Search by meaning" fieldset, and how to read its choices. */
export function searchModelsSection(app: App, s: SettingsView): { node: HTMLElement; models: SearchModels } {
  const embeddings = modelChoice(app, 'embeddings', s.embeddings);
  const reranker = modelChoice(app, 'reranker', s.reranker);
  const progress = h('span', { class: 'field-hint', 'data-testid': 'embedding-progress', 'aria-live': 'polite' });
  if (s.embeddings) {
    app.config.embeddingProgress().then((p) => {
      progress.className = p.failure ? 'field-hint field-error' : 'field-hint';
      progress.textContent = [t('embeddingProgress', { done: count(p.embedded), all: count(p.passages) }), p.failure ? t('embeddingFailed', { error: p.failure }) : '']
        .filter(Boolean).join(' ');
    }, () => {
      // Not known now: the line stays empty, the choice still works.
    });
  }
  const node = h('fieldset', { class: 'grid', 'data-testid': 'search-models' },
    h('legend', null, t('searchByMeaning')),
    h('p', { class: 'hint' }, t('searchByMeaningHint')),
    field(t('embeddingsModel'), embeddings.node, undefined, progress),
    field(t('rerankerModel'), reranker.node, t('rerankerHint')),
  );
  return { node, models: { embeddings: embeddings.value, reranker: reranker.value } };
}

/** A server (or off) and a model name, with the names that server lists to pick from. */
function modelChoice(app: App, what: 'embeddings' | 'reranker', chosen: ModelChoice | null): { node: HTMLElement; value: () => ModelChoice | null } {
  // A chosen server the list does not hold (not read yet) stays chosen: saving must not turn it off.
  const unlisted = chosen && !app.servers.connections.some((c) => c.id === chosen.connection_id) ? chosen.connection_id : null;
  const server = h('select', { class: 'input', name: `${what}_server`, 'data-testid': `${what}-server` },
    h('option', { value: '' }, t('searchModelOff')),
    app.servers.connections.map((c) => h('option', { value: String(c.id) }, c.name)),
    unlisted !== null ? h('option', { value: String(unlisted) }, `#${unlisted}`) : null);
  server.value = chosen ? String(chosen.connection_id) : '';
  const listId = `${what}-models`;
  const names = h('datalist', { id: listId });
  const model = h('input', { class: 'input', type: 'text', name: `${what}_model`, placeholder: t('modelName'), spellcheck: 'false', list: listId, 'data-testid': `${what}-model` });
  model.value = chosen?.model ?? '';
  const listModels = () => {
    const id = Number(server.value);
    model.disabled = !id;
    const listed = (id && app.servers.modelLists.get(id)?.models) || [];
    names.replaceChildren(...listed.map((m) => h('option', { value: m.id })));
    if (id && !app.servers.modelLists.has(id)) void app.servers.loadModelList(id).then(listModels);
  };
  server.addEventListener('change', listModels);
  listModels();
  const value = (): ModelChoice | null => {
    const id = Number(server.value);
    const name = model.value.trim();
    return id && name ? { connection_id: id, model: name } : null;
  };
  return { node: h('div', { class: 'row' }, server, model, names), value };
}

/** The patch's fields for the section: only those the user changed. */
export function searchModelsPatch(models: SearchModels, now: SettingsView): Partial<Pick<SettingsView, 'embeddings' | 'reranker'>> {
  const patch: Partial<Pick<SettingsView, 'embeddings' | 'reranker'>> = {};
  const same = (a: ModelChoice | null, b: ModelChoice | null) => (a?.connection_id ?? null) === (b?.connection_id ?? null) && (a?.model ?? null) === (b?.model ?? null);
  const embeddings = models.embeddings();
  if (!same(embeddings, now.embeddings)) patch.embeddings = embeddings;
  const reranker = models.reranker();
  if (!same(reranker, now.reranker)) patch.reranker = reranker;
  return patch;
}

/** How a hybrid search ranked, as a line under its passages; nothing for a search by words
 *  alone (no embeddings model chosen). */
export function rankingNote(ranking: SearchRanking | null | undefined): HTMLElement | null {
  if (!ranking) return null;
  const notes: string[] = [];
  const meaning = ranking.meaning;
  const rerank = ranking.rerank;
  if (meaning.status === 'failed') notes.push(t('rankingMeaningFailed', { error: meaning.message }));
  else if (meaning.status === 'timed_out') notes.push(t('rankingMeaningTimedOut'));
  else if (meaning.status === 'pending') notes.push(t('rankingMeaningPending'));
  if (rerank?.status === 'failed') notes.push(t('rankingRerankFailed', { error: rerank.message }));
  else if (rerank?.status === 'timed_out') notes.push(t('rankingRerankTimedOut'));
  if (notes.length === 0) {
    const key: Key = rerank?.status === 'used' ? 'rankingHybridReranked' : 'rankingHybrid';
    notes.push(t(key));
  }
  const degraded = meaning.status !== 'used' || (rerank != null && rerank.status !== 'used');
  return h('p', { class: degraded ? 'field-hint field-error' : 'field-hint', 'data-testid': 'search-ranking' }, notes.join(' '));
}

function field(label: string, control: HTMLElement, hint?: string, extra?: HTMLElement): HTMLElement {
  return h('div', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null, extra ?? null);
}
