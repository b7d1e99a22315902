// Maru's web UI: picks the backend (the desktop app's IPC, or `maru serve` with the access token
// from the address), and mounts.

import './style.css';
import { App } from './app';
import { httpBackend } from './backend/http';
import { DESKTOP_ORIGIN, inDesktop, ipcFetch } from './backend/ipc';
import { takeToken } from './backend/token';
import { setLanguage, startLanguage } from './lib/i18n';
import { preloadMarkdown } from './lib/markdown';
import { applyTheme, rememberedTheme } from './lib/theme';
import { renderNotices } from './state/notices';
import { mountLayout, mountNoToken, preloadViews } from './views/layout';
import { toast } from './views/toast';

applyTheme(rememberedTheme());
// What the state tells the user shows as the window's notices.
renderNotices(toast);
// Until the settings arrive (and on the page without a token): the language chosen here, else
// the browser's.
setLanguage(startLanguage());
const root = document.getElementById('app')!;
const desktop = inDesktop();
// In the desktop window no token exists: IPC reaches only this app's own core.
const token = desktop ? 'desktop' : takeToken();

if (!token) {
  mountNoToken(root);
} else {
  let app: App | null = null;
  const onReachable = (ok: boolean) => app?.setReachable(ok);
  // One typed client either way: over IPC in the desktop window, else over HTTP.
  const backend = desktop
    ? httpBackend({ token, onReachable, baseUrl: DESKTOP_ORIGIN, fetch: ipcFetch })
    : httpBackend({ token, onReachable });
  app = new App(backend);
  const layout = mountLayout(app, root);
  // The desktop's own parts (its menu, notifications) and Tauri's API are a chunk only it loads.
  if (desktop) {
    const shown = app;
    void import('./desktop').then((d) => d.mountDesktop(shown, layout.perform));
  }
  void app.start();
  (window as unknown as { maru?: App }).maru = app;
  // The Markdown renderer is a chunk of its own: fetched once the window is drawn, so that the
  // first reply (or a chat opened at start) does not wait for it; then the panels and Settings.
  // KaTeX and highlight.js wait for a reply that needs them.
  const preload = () => {
    void preloadMarkdown().then(preloadViews);
  };
  if ('requestIdleCallback' in window) requestIdleCallback(preload, { timeout: 1000 });
  else setTimeout(preload, 200);
}
