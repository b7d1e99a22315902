// The chat's model, chosen among every server that is on: each server's models under its name.
// The lists are asked one server at a time as the menu opens and come in as they are answered: a
// server that is down shows why in its group, and holds up no other. A model is one server's, so
// choosing it sets the chat's (server, model) pair at once.

import type { App } from '../app';
import type { Session } from '../backend/types';
import { t } from '../lib/i18n';
import type { MenuItem } from './menu';
import { modelsProblem } from './modelsProblem';

/** What the header says of a chat's model: its name and, off the default server, the server's;
 *  `whole`: both in one phrase, for the tooltip. */
/** A chat's model as the picker reads it: a saved chat's, or what a new chat will get. */
export type ChatModel = Pick<Session, 'connection_id' | 'model'>;

export function chatModelLabel(app: App, s: ChatModel): { model: string; server: string | null; whole: string } {
  const conn = app.servers.chatConnection(s);
  const onDefault = s.connection_id === null || !!conn?.is_default;
  const server = onDefault || !conn ? null : conn.name;
  // No model of its own: its server's default (the global setting on the default server).
  const model = s.model ?? (onDefault ? app.config.settings?.model || t('modelServerFirst') : t('serverFirstModel'));
  const whole = server === null ? model : s.model ? t('modelOnServer', { model, server }) : t('firstModelOf', { server });
  return { model, server, whole };
}

/** The model part of the chat's preset-and-model menu. */
export function chatModelItems(app: App, s: ChatModel, openServers: () => void): MenuItem[] {
  const global = app.config.settings?.model || t('modelServerFirst');
  const current = app.servers.chatConnection(s);
  const items: MenuItem[] = [
    { label: t('chatModel'), heading: true },
    { label: t('globalModel', { model: global }), icon: 'cpu', checked: s.connection_id === null && s.model === null, onSelect: () => void app.chat.setChatModel(null, null) },
  ];
  if (!app.servers.connectionsLoaded) {
    items.push(app.servers.connectionsError
      ? { label: t('serverModelsFailed'), icon: 'warn', disabled: true, title: app.servers.serverError(app.servers.connectionsError) }
      : { label: t('loading'), disabled: true });
  }
  // The servers that are on, and the chat's own even when it is off (so the control never lies).
  for (const conn of app.servers.connections.filter((c) => c.enabled || c.id === current?.id)) {
    const mine = conn.id === current?.id;
    const list = app.servers.modelLists.get(conn.id);
    const names = (list?.models ?? []).map((m) => m.id);
    // The chat's model still shows when its server no longer lists it.
    if (mine && s.model && !names.includes(s.model)) names.push(s.model);
    const off = conn.enabled ? {} : { disabled: true, title: t('serverOffHint') };
    const heading = !conn.enabled ? t('serverOffNamed', { name: conn.name }) : conn.is_default ? t('defaultServerGroup', { name: conn.name }) : conn.name;
    items.push({ label: heading, heading: true, group: true });
    // A chat on this server without a model of its own: its first model, as chosen.
    if (mine && s.model === null && s.connection_id !== null) items.push({ label: conn.is_default ? global : t('serverFirstModel'), icon: 'cpu', checked: true, ...off });
    items.push(...names.map((m): MenuItem => ({
      label: m, icon: 'cpu', checked: mine && m === s.model, ...off, onSelect: () => void app.chat.setChatModel(conn.id, m),
    })));
    if (!conn.enabled) continue;
    if (list?.error) items.push({ label: modelsProblem(list.error), icon: 'warn', disabled: true, title: app.servers.serverError(list.error) });
    else if (!list?.models) items.push({ label: t('serverChecking'), disabled: true });
    else if (names.length === 0) items.push({ label: t('serverModelsCount', { n: 0 }), disabled: true });
  }
  items.push({ label: t('manageServers'), icon: 'gear', onSelect: openServers });
  return items;
}
