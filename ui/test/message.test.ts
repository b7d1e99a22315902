import { describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Message } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { messageNode } from '../src/views/message';
import { fakeBackend } from './fakeBackend';
import { message } from './fixtures';

describe('a stored reply', () => {
  it('shows its tool calls as the server sends them ({id, type, function: {name, arguments}})', () => {
    setLanguage('en');
    const m = message({
      id: 7, role: 'assistant', content: 'Found it.', model: 'm',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_files', arguments: '{"query":"calendar"}' } }],
    });
    const app = new App(fakeBackend({}).backend);
    const node = messageNode(app, m, { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} });
    const call = node.querySelector('.tool-call')!;
    expect(call.querySelector('summary')?.textContent).toContain('Called search_files');
    expect(call.querySelector('.tool-args')?.textContent).toBe('{\n  "query": "calendar"\n}');
  });
});

describe('a failed reply', () => {
  const failed = (id: number, error: string, error_code: string | null = null): Message =>
    message({ id, role: 'assistant', status: 'error', error, error_code });
  const ctx = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };

  it('shows a model-server failure in Korean when its code came with the turn, and the stored text otherwise', () => {
    setLanguage('ko');
    const app = new App(fakeBackend({}).backend);
    const text = 'cannot reach the model server at http://127.0.0.1:8080';
    app.replyErrors.set(8, { code: 'model_server.unreachable', message: text });
    expect(messageNode(app, failed(8, text), ctx).querySelector('.msg-error')?.textContent)
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080)');
    expect(messageNode(app, failed(9, text), ctx).querySelector('.msg-error')?.textContent).toBe(text);
    setLanguage('en');
    expect(messageNode(app, failed(8, text), ctx).querySelector('.msg-error')?.textContent).toBe(text);
  });

  it('shows a stored failure in Korean by its stored code, after a reload too', () => {
    setLanguage('ko');
    const app = new App(fakeBackend({}).backend);
    const text = 'cannot reach the model server at http://127.0.0.1:8080';
    expect(messageNode(app, failed(10, text, 'model_server.unreachable'), ctx).querySelector('.msg-error')?.textContent,
      'a fresh window knows no live code: the stored one must be enough')
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080)');
    setLanguage('en');
  });
});
