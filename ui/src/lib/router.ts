// The address bar: which chat it names (`#/chat/<id>`, or none for a new chat), written as chats
// open (a new history entry, or in place), and the back and forward buttons heard.

/** The chat the address names, or null (a new chat). */
export function routedChat(): number | null {
  const m = /^#\/chat\/(\d+)$/.exec(window.location.hash);
  return m ? Number(m[1]) : null;
}

/** Puts a chat (null: a new chat) in the address; `push`: as a new history entry. */
export function showChatInAddress(sessionId: number | null, push: boolean): void {
  const url = window.location.pathname + window.location.search + (sessionId ? `#/chat/${sessionId}` : '');
  if (url === window.location.pathname + window.location.search + window.location.hash) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** Calls `fn` when the user goes back or forward. */
export function onAddressChange(fn: () => void): void {
  window.addEventListener('popstate', fn);
}
