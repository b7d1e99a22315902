// Modal dialogs on <dialog>: a general one, a confirmation, and a one-field prompt.

import { h, type Child } from '../lib/dom';
import { t } from '../lib/i18n';

export interface DialogHandle {
  dialog: HTMLDialogElement;
  close(): void;
}

/** Opens a modal with a title, a body and a footer; Escape and the close button dismiss it. */
export function openDialog(opts: { title: string; body: Child; footer?: Child; wide?: boolean; onClose?: () => void; className?: string }): DialogHandle {
  const dialog = h('dialog', { class: ['dialog', opts.wide && 'dialog-wide', opts.className] });
  const close = () => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener('close', () => {
    dialog.remove();
    opts.onClose?.();
  });
  // A click on the backdrop (the dialog box itself, outside its content) closes it.
  dialog.addEventListener('mousedown', (e) => {
    if (e.target === dialog) close();
  });
  dialog.append(
    h('div', { class: 'dialog-inner' },
      h('header', { class: 'dialog-head' },
        h('h2', null, opts.title),
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('close'), onClick: close }, '×'),
      ),
      h('div', { class: 'dialog-body' }, opts.body),
      opts.footer ? h('footer', { class: 'dialog-foot' }, opts.footer) : null,
    ),
  );
  document.body.appendChild(dialog);
  dialog.showModal();
  return { dialog, close };
}

export function confirmDialog(opts: { title: string; body: string; confirm: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const ok = h('button', { class: ['btn', opts.danger ? 'btn-danger' : 'btn-primary'], type: 'button', onClick: () => { answer = true; handle.close(); } }, opts.confirm);
    const handle = openDialog({
      title: opts.title,
      body: h('p', { class: 'dialog-text' }, opts.body),
      footer: [h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')), ok],
      onClose: () => resolve(answer),
      className: 'dialog-confirm',
    });
    ok.focus();
  });
}

/** Asks for one line of text; resolves with it, or null when cancelled. */
export function promptDialog(opts: { title: string; label: string; value?: string; placeholder?: string; confirm?: string }): Promise<string | null> {
  return new Promise((resolve) => {
    let answer: string | null = null;
    const input = h('input', { class: 'input', type: 'text', value: opts.value ?? '', placeholder: opts.placeholder ?? '', maxlength: 200 });
    const submit = (e?: Event) => {
      e?.preventDefault();
      answer = input.value;
      handle.close();
    };
    const form = h('form', { onSubmit: submit }, h('label', { class: 'field' }, h('span', { class: 'field-label' }, opts.label), input));
    const handle = openDialog({
      title: opts.title,
      body: form,
      footer: [
        h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')),
        h('button', { class: 'btn btn-primary', type: 'button', onClick: () => submit() }, opts.confirm ?? t('save')),
      ],
      onClose: () => resolve(answer),
    });
    input.focus();
    input.select();
  });
}
