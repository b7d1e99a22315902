// The access token: `maru serve` prints a URL ending in `#token=…`. The fragment never reaches
// a server; we keep the token for this tab in sessionStorage and take it out of the address bar.

const KEY = 'maru.token';

export function takeToken(loc: Location = window.location, storage: Storage = window.sessionStorage): string | null {
  const hash = loc.hash.startsWith('#') ? loc.hash.slice(1) : loc.hash;
  const params = new URLSearchParams(hash);
  const fromUrl = params.get('token');
  if (fromUrl) {
    storage.setItem(KEY, fromUrl);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(history.state, '', loc.pathname + loc.search + (rest ? `#${rest}` : ''));
    return fromUrl;
  }
  return storage.getItem(KEY);
}
