// The message box: Enter sends, Shift+Enter makes a new line (and Enter while an input method
// is composing, as when typing Korean, does neither). While a reply streams, Send becomes Stop.
// Files attach with the paperclip, by pasting an image, or by dropping them on the chat (see
// `mountDropZone`); each shows as a chip with its status until the next message is sent.

import type { App } from '../app';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { commandsIn, slashAt } from '../lib/commands';
import { filePicker, filesToAttach, uploadChip } from './files';
import type { SlashMenu } from './slashMenu';
import { keepToastsAbove } from './toast';

export function mountComposer(app: App, root: HTMLElement): { focus(): void } {
  const composer = new Composer(app);
  app.on('chat', () => composer.onChat());
  app.on('files', () => composer.renderChips());
  app.on('live', () => composer.renderButton());
  app.on('settings', () => composer.renderButton());
  replaceChildren(root, composer.el, composer.hint);
  // Notices (an Undo among them) never cover what is being typed, or Send.
  keepToastsAbove(root);
  composer.renderButton();
  composer.renderChips();
  return { focus: () => composer.area.focus() };
}

class Composer {
  readonly area = h('textarea', {
    class: 'composer-input',
    rows: 1,
    placeholder: t('composerPlaceholder'),
    'aria-label': t('composerPlaceholder'),
    'data-testid': 'composer',
  });
  readonly hint = h('div', { class: 'composer-hint' });
  /** The chips, the row of the box and its buttons, and the file picker. */
  readonly el: HTMLElement;

  /** What was typed in each chat and not sent ("new" for a new chat). */
  private readonly drafts = new Map<string, string>();
  private draftKey: string;
  private readonly button = h('button', { class: 'send-btn', type: 'button' });
  private readonly attach: HTMLElement;
  private readonly chips = h('ul', { class: 'chips', 'data-testid': 'upload-chips', hidden: true });
  /** The `/` menu, loaded when a `/` is first typed (most messages never need it). */
  private slash: SlashMenu | null = null;
  private slashLoading = false;
  private readonly slashHost = h('div', { hidden: true });

  constructor(private readonly app: App) {
    this.draftKey = this.key();
    const picker = filePicker((files) => void app.attachments.attachToChat(files), 'attach-input');
    this.attach = h('button', {
      class: 'icon-btn attach-btn', type: 'button', 'data-testid': 'attach', onClick: () => picker.open(),
    }, icon('paperclip'));
    this.el = h('div', { class: 'composer' }, this.slashHost, this.chips, h('div', { class: 'composer-row' }, this.attach, this.area, this.button), picker.input);
    this.listen();
  }

  private key(): string {
    const chat = this.app.chat;
    return chat.session ? String(chat.session.id) : `new:${chat.draftProjectId ?? ''}`;
  }

  private listen(): void {
    const { app, area } = this;
    // A pasted image (a screenshot) is attached; pasted text goes in the box as usual.
    area.addEventListener('paste', (e) => {
      const data = e.clipboardData;
      if (!data) return;
      const files = filesToAttach(Array.from(data.items).filter((i) => i.kind === 'file').map((i) => i.getAsFile()).filter((f): f is File => !!f), true);
      if (files.length === 0) return;
      if (!data.types.includes('text/plain')) e.preventDefault();
      void app.attachments.attachToChat(files);
    });
    area.addEventListener('input', () => {
      this.resize();
      this.drafts.set(this.draftKey, area.value);
      this.followSlash();
    });
    area.addEventListener('keydown', (e) => {
      if (this.slash?.keydown(e)) {
        e.preventDefault();
        e.stopPropagation();
        return;
      }
      if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        void this.send();
      }
    });
    this.button.addEventListener('click', () => {
      if (app.chat.currentLive()) void app.chat.stop();
      else void this.send();
    });
  }

  /** The `/` menu follows what is typed; its code is fetched at the first `/`. */
  private followSlash(): void {
    if (this.slash) return this.slash.update();
    const area = this.area;
    if (this.slashLoading || !slashAt(area.value, area.selectionStart ?? 0)) return;
    this.slashLoading = true;
    import('./slashMenu').then(({ mountSlashMenu }) => {
      this.slash = mountSlashMenu(this.app, area, () => {
        this.resize();
        this.drafts.set(this.draftKey, area.value);
      });
      this.slashHost.replaceWith(this.slash.el);
      this.slash.update();
    }, (e: unknown) => {
      this.slashLoading = false;
      console.error('Maru: the / menu did not load', e);
    });
  }

  renderChips(): void {
    const sid = this.app.chat.session?.id;
    const mine = sid === undefined ? [] : this.app.attachments.uploads.filter((u) => u.sessionId === sid);
    this.chips.hidden = mine.length === 0;
    replaceChildren(this.chips, mine.map((u) => uploadChip(this.app, u)));
  }

  private resize(): void {
    const area = this.area;
    area.style.height = 'auto';
    area.style.height = `${Math.min(area.scrollHeight, window.innerHeight * 0.4)}px`;
  }

  private async send(): Promise<void> {
    const { app, area } = this;
    if (app.chat.currentLive()) return;
    const text = area.value;
    if (!text.trim()) return;
    const sentFrom = this.key();
    area.value = '';
    this.drafts.delete(sentFrom);
    this.resize();
    this.slash?.close();
    // The skills the message names with `/` are loaded with it.
    const skills = commandsIn(text, app.commands.known()).filter((c) => c.kind === 'skill').map((c) => c.name);
    const ok = await app.chat.send(text, skills);
    // Refused: the text comes back, unless something new was typed meanwhile.
    if (!ok && !area.value) {
      area.value = text;
      this.resize();
    }
  }

  /** Send, or Stop while a reply is written; and the words of the box, in the UI's language. */
  renderButton(): void {
    const { button, area, attach } = this;
    const live = this.app.chat.currentLive();
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
    this.hint.textContent = t('composerHint');
    attach.title = t('attachFiles');
    attach.setAttribute('aria-label', t('attachFiles'));
  }

  /** Another chat shown: its draft in the box (what is typed in a chat just created stays). */
  onChat(): void {
    const { app, area } = this;
    const k = this.key();
    // The open chat was deleted elsewhere: what is typed stays, for the new chat shown instead.
    const keep = app.chat.keepDraft;
    if (k !== this.draftKey) {
      // A new chat that just got created keeps what is being typed; otherwise swap drafts.
      const wasNew = this.draftKey.startsWith('new:') && app.chat.session && app.chat.messages.length <= 1;
      // Typed while Maru was still loading (the new chat's project not known yet): the words are
      // for the chat now shown, not a draft to put away.
      const typedWhileLoading = this.draftKey === 'new:' && area.value && !this.drafts.get(k);
      if ((keep || typedWhileLoading) && area.value) {
        this.drafts.set(k, area.value);
      } else if (!wasNew) {
        area.value = this.drafts.get(k) ?? '';
        this.resize();
      }
      this.draftKey = k;
      // A chat just opened: ready to type (not on small screens, where it would pop a keyboard).
      if (!document.querySelector('dialog[open]') && window.innerWidth > 760) area.focus();
    }
    this.renderButton();
    this.renderChips();
  }
}
