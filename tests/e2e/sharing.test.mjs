// Browser end-to-end: Settings → Share with other apps. Nothing is shared at first; the user
// checks "Search your chats", another app (an MCP client speaking Streamable HTTP to /mcp with the
// token) then finds a chat, and its call shows in the section's list, by the name the app gave.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

/** One JSON-RPC message to /mcp; the answer, read from the event stream when it comes as one. */
async function mcp(base, message, session) {
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) });
  const sessionId = res.headers.get('mcp-session-id');
  if (!('id' in message)) return { sessionId, body: null };
  const reader = res.body.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => { try { return JSON.parse(l.slice(5)); } catch { return null; } }).find((v) => v?.id === message.id);
    if (data) {
      await reader.cancel();
      return { sessionId, body: data };
    }
  }
  return { sessionId, body: JSON.parse(text || 'null') };
}

test('sharing: the user shares the chats, another app searches them, and its call is listed', { timeout: 120_000 }, async (t) => {
  const { maru, page, pageErrors, step } = await setUp(t, 'sharing', null);
  const chat = await api(maru.base, 'POST', '/api/sessions', { title: 'Trip to Jeju in May' });
  const dialog = page.locator('dialog[open]');
  const pane = dialog.getByTestId('sharing-pane');

  await step('nothing is shared at first', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: 'Share with other apps' }).click();
    for (const id of ['share-memory_read', 'share-memory_write', 'share-chats']) {
      assert.equal(await pane.getByTestId(id).isChecked(), false, `${id}: off by default`);
    }
    await pane.getByTestId('shared-calls').getByText('No app has called Maru yet.').waitFor();
  });

  await step('checking "Search your chats" shares them', async () => {
    await pane.getByTestId('share-chats').check();
    for (let i = 0; i < 50 && !(await api(maru.base, 'GET', '/api/settings')).sharing.chats; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await api(maru.base, 'GET', '/api/settings')).sharing.chats, true, 'the check is saved as the sharing setting');
  });

  await step('another app finds the chat through /mcp', async () => {
    const init = await mcp(maru.base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Claude Desktop', version: '1.0' } } });
    assert.ok(init.sessionId, `a session for the app: ${JSON.stringify(init.body)}`);
    await mcp(maru.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.sessionId);
    const found = await mcp(maru.base, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_chats', arguments: { query: 'Jeju' } } }, init.sessionId);
    const text = found.body?.result?.content?.[0]?.text ?? '';
    assert.ok(text.includes('Trip to Jeju in May') && text.includes(`chat ${chat.id}`), `the app finds the chat by its title: ${JSON.stringify(found.body)}`);
  });

  await step('the call shows in the list, by the app\'s name', async () => {
    await pane.getByTestId('shared-calls-refresh').click();
    const row = pane.getByTestId('shared-calls').locator('li').first();
    await row.filter({ hasText: 'Claude Desktop' }).waitFor();
    const shown = await row.innerText();
    assert.ok(shown.includes('search_chats') && shown.includes('Jeju'), `when, which app, which tool, what it asked: ${shown}`);
    await page.screenshot({ path: path.join(outDir, 'sharing.png') });
    assert.deepEqual(pageErrors, [], 'no page errors');
  });
});
