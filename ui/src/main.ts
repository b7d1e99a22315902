// Maru's web UI: takes the access token from the address, picks the backend, and mounts.

import './style.css';
import { App } from './app';
import { HttpBackend } from './backend/http';
import { takeToken } from './backend/token';
import { applyTheme, rememberedTheme } from './lib/theme';
import { mountLayout, mountNoToken } from './views/layout';

applyTheme(rememberedTheme());
const root = document.getElementById('app')!;
const token = takeToken();

if (!token) {
  mountNoToken(root);
} else {
  // A Tauri build would construct its own Backend here instead.
  let app: App | null = null;
  const backend = new HttpBackend({ token, onReachable: (ok) => app?.setReachable(ok) });
  app = new App(backend);
  mountLayout(app, root);
  void app.start();
  (window as unknown as { maru?: App }).maru = app;
}
