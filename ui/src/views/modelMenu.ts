// The chat's model, chosen among every server that is on: each server's models under its name.
// The lists are asked one server at a time as the menu opens and come in as they are answered: a
// server that is down shows why in its group, and holds up no other. A model is one server's, so
// choosing it sets the chat's (server, model) pair at once.

import type { App } from '../app';
import type { Session } from '../backend/types';
import { t } from '../lib/i18n';
import type { MenuItem } from './menu';
import { modelsProblem } from './modelsProblem';

/** The model part of the chat's preset-and-model menu. */
export function chatModelItems(app: App, s: Pick<Session, 'connection_id' | 'model'>, openServers: () => void): MenuItem[] {
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
