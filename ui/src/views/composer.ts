// The message box: Enter sends, Shift+Enter makes a new line (and Enter while an input method
// is composing, as when typing Korean, does neither). While a reply streams, Send becomes Stop.
// Files attach with the paperclip, by pasting an image, or by dropping them on the chat (see
// `mountDropZone`); each shows as a chip with its status until the next message is sent.

import type { App } from '../app';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { filePicker, filesToAttach, uploadChip } from './files';
import { keepToastsAbove } from './toast';

export function mountComposer(app: App, root: HTMLElement): { focus(): void } {
  /** What was typed in each chat and not sent ("new" for a new chat). */
  const drafts = new Map<string, string>();
  let draftKey = key();

  function key(): string {
    return app.chat.session ? String(app.chat.session.id) : `new:${app.chat.draftProjectId ?? ''}`;
  }

  const area = h('textarea', {
    class: 'composer-input',
    rows: 1,
    placeholder: t('composerPlaceholder'),
    'aria-label': t('composerPlaceholder'),
    'data-testid': 'composer',
  });
  const button = h('button', { class: 'send-btn', type: 'button' });
  const hint = h('div', { class: 'composer-hint' });
  const picker = filePicker((files) => void app.attachments.attachToChat(files), 'attach-input');
  const attach = h('button', {
    class: 'icon-btn attach-btn', type: 'button', 'data-testid': 'attach', onClick: () => picker.open(),
  }, icon('paperclip'));
  const chips = h('ul', { class: 'chips', 'data-testid': 'upload-chips', hidden: true });

  const renderChips = () => {
    const sid = app.chat.session?.id;
    const mine = sid === undefined ? [] : app.attachments.uploads.filter((u) => u.sessionId === sid);
    chips.hidden = mine.length === 0;
    replaceChildren(chips, mine.map((u) => uploadChip(app, u)));
  };

  // A pasted image (a screenshot) is attached; pasted text goes in the box as usual.
  area.addEventListener('paste', (e) => {
    const data = e.clipboardData;
    if (!data) return;
    const files = filesToAttach(Array.from(data.items).filter((i) => i.kind === 'file').map((i) => i.getAsFile()).filter((f): f is File => !!f), true);
    if (files.length === 0) return;
    if (!data.types.includes('text/plain')) e.preventDefault();
    void app.attachments.attachToChat(files);
  });

  const resize = () => {
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, window.innerHeight * 0.4)}px`;
  };

  const send = async () => {
    if (app.chat.currentLive()) return;
    const text = area.value;
    if (!text.trim()) return;
    const sentFrom = key();
    area.value = '';
    drafts.delete(sentFrom);
    resize();
    const ok = await app.chat.send(text);
    // Refused: the text comes back, unless something new was typed meanwhile.
    if (!ok && !area.value) {
      area.value = text;
      resize();
    }
  };

  area.addEventListener('input', () => {
    resize();
    drafts.set(draftKey, area.value);
  });
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      void send();
    }
  });

  const renderButton = () => {
    const live = app.chat.currentLive();
    if (live) {
      replaceChildren(button, icon('stop'), h('span', null, t('stop')));
      button.className = 'send-btn stop';
      button.title = t('stop');
      button.setAttribute('data-testid', 'stop');
      button.disabled = live.stopping;
    } else {
      replaceChildren(button, icon('send'), h('span', null, t('send')));
      button.className = 'send-btn';
      button.title = t('send');
      button.setAttribute('data-testid', 'send');
      button.disabled = false;
    }
    area.placeholder = t('composerPlaceholder');
    area.setAttribute('aria-label', t('composerPlaceholder'));
    hint.textContent = t('composerHint');
    attach.title = t('attachFiles');
    attach.setAttribute('aria-label', t('attachFiles'));
  };
  button.addEventListener('click', () => {
    if (app.chat.currentLive()) void app.chat.stop();
    else void send();
  });

  const onChat = () => {
    const k = key();
    // The open chat was deleted elsewhere: what is typed stays, for the new chat shown instead.
    const keep = app.chat.keepDraft;
    if (k !== draftKey) {
      // A new chat that just got created keeps what is being typed; otherwise swap drafts.
      const wasNew = draftKey.startsWith('new:') && app.chat.session && app.chat.messages.length <= 1;
      if (keep && area.value) {
        drafts.set(k, area.value);
      } else if (!wasNew) {
        area.value = drafts.get(k) ?? '';
        resize();
      }
      draftKey = k;
      // A chat just opened: ready to type (not on small screens, where it would pop a keyboard).
      if (!document.querySelector('dialog[open]') && window.innerWidth > 760) area.focus();
    }
    renderButton();
    renderChips();
  };
  app.on('chat', onChat);
  app.on('files', renderChips);
  app.on('live', renderButton);
  app.on('settings', renderButton);

  replaceChildren(root, h('div', { class: 'composer' }, chips, h('div', { class: 'composer-row' }, attach, area, button), picker.input), hint);
  // Notices (an Undo among them) never cover what is being typed, or Send.
  keepToastsAbove(root);
  renderButton();
  renderChips();
  return { focus: () => area.focus() };
}
