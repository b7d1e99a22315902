// The banner that offers a model server found on the usual local ports, shown at start when the
// configured one cannot be used (see `App.checkModelServer`). It never blocks: chats stay usable.

import type { App } from '../app';
import type { FoundServer } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { openSettingsDialog } from './settingsLink';

/** Draws `app.config.serverOffer` into `el` now and whenever it (or the language) changes. */
export function mountServerBanner(app: App, el: HTMLElement): void {
  const render = () => {
    const offer = app.config.serverOffer;
    if (!offer) {
      el.hidden = true;
      el.replaceChildren();
      return;
    }
    el.hidden = false;
    const title = offer.reason === 'none' ? t('serverNone')
      : offer.reason === 'unreachable' ? t('serverDown', { url: offer.endpoint }) : t('serverNoModel', { url: offer.endpoint });
    const body = offer.servers.length
      ? h('ul', { class: 'server-offers' }, offer.servers.map((srv) => offerItem(app, srv)))
      : offer.demo ? demoOffer(app, offer.demoStarting) : h('p', null, t('noServerFound'));
    replaceChildren(el,
      icon('search'),
      h('div', { class: 'banner-body' }, h('strong', null, title), body),
      offer.servers.length ? null : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'server-banner-settings', onClick: () => openSettingsDialog(app, 'server') }, t('settings')),
      h('button', { class: 'icon-btn', type: 'button', title: t('close'), 'aria-label': t('close'), onClick: () => app.config.dismissServerOffer() }, icon('close')),
    );
  };
  app.on('serverOffer', render);
  app.on('settings', render);
  render();
}

/** The demo model's offer; while it starts, the button says so with the seconds gone by. */
function demoOffer(app: App, startedAt: number | undefined): HTMLElement {
  const button = h('button', {
    class: 'btn btn-small btn-primary', type: 'button', 'data-testid': 'start-demo', disabled: startedAt !== undefined,
    'aria-busy': startedAt !== undefined ? 'true' : null, onClick: () => void app.config.startDemo(),
  }, startedAt !== undefined ? t('demoStarting') : t('demoStart'));
  if (startedAt !== undefined) {
    const tick = () => {
      // Drawn again once it started (or failed): this button is gone.
      if (!button.isConnected) return clearInterval(timer);
      button.textContent = t('demoStartingFor', { seconds: Math.round((Date.now() - startedAt) / 1000) });
    };
    const timer = setInterval(tick, 1000);
  }
  return h('div', null, h('p', null, t('noServerFound')), h('p', { class: 'muted' }, t('demoExplained')), button);
}

function offerItem(app: App, srv: FoundServer): HTMLElement {
  const use = async () => {
    if (!(await app.config.useServer(srv))) return;
    // It is there but wants a key: the settings are where to type it.
    if (srv.needs_api_key) openSettingsDialog(app, 'server');
  };
  return h('li', { 'data-testid': 'server-offer', dataset: { url: srv.base_url } },
    h('span', null, t('serverFound', { kind: srv.kind_guess, url: srv.base_url }), ' ', h('span', { class: 'muted' }, `(${modelsNote(srv)})`), ' — '),
    h('button', { class: 'btn btn-small btn-primary', type: 'button', 'data-testid': 'use-server', onClick: () => void use() }, t('useIt')),
  );
}

/** "SmolLM2-135M", "a, b…", "needs an API key" or "no models listed". */
function modelsNote(srv: FoundServer): string {
  if (srv.needs_api_key) return t('needsKey');
  if (srv.models.length === 0) return t('noModelsListed');
  const shown = srv.models.slice(0, 2).join(', ');
  return srv.models.length > 2 ? `${shown}…` : shown;
}
