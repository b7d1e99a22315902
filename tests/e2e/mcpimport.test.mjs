// Browser end-to-end: MCP servers as people copy them. Claude Desktop's claude_desktop_config.json
// (tests/mcp/configs, in the shape its documentation gives) is pasted into Settings → Tools →
// Import mcp.json: the preview lists each server with what it runs, marks the API key as a secret
// and the token left as <YOUR_TOKEN> as one to fill in, and only the ticked ones are added, at
// once; the key's value is never on the page. A whole command line typed into Command is split
// into the program and its arguments before it is saved. Screenshots go to tests/e2e/out/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, outDir, repo, setUp, TOKEN } from './harness.mjs';

const CONFIG = fs.readFileSync(path.join(repo, 'tests/mcp/configs/claude_desktop_config.json'), 'utf8');
/** The Brave key in the fixture: it must reach the store and never the page. */
const SECRET = 'BSAq7vN2kT9xWm4pLr8sYc3dFh6jKe1gZ0u';

test('tool servers: an mcp.json pasted, previewed and added; a pasted command line split before saving', { timeout: 120_000 }, async (t) => {
  const { maru, page, pageErrors, step } = await setUp(t, 'mcpimport', null);
  const dialog = page.locator('dialog[open]');
  const pane = dialog.getByTestId('tools-pane');
  const form = pane.getByTestId('tool-server-import');
  const item = (key) => form.locator(`[data-testid=import-item][data-key="${key}"]`);

  await step('open Settings → Tools and paste Claude Desktop’s config', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('open-settings').click();
    await dialog.getByRole('tab', { name: 'Tools', exact: true }).click();
    await pane.getByTestId('no-tool-servers').waitFor();
    await pane.getByTestId('import-tool-servers').click();
    await form.getByTestId('import-text').fill(CONFIG);
    await form.getByTestId('import-preview-btn').click();
    await form.getByTestId('import-item').nth(2).waitFor();
  });

  await step('the preview shows each server, its secret marked and never its value, and adds nothing yet', async () => {
    const names = await form.getByTestId('import-name').allTextContents();
    assert.deepEqual(names, ['filesystem', 'brave-search', 'github'], 'every server of the file, in its order');
    assert.equal(await item('filesystem').getByTestId('import-what').textContent(),
      'npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop /Users/username/Downloads');
    const brave = item('brave-search').locator('.import-value[data-name=BRAVE_API_KEY]');
    assert.equal(await brave.getAttribute('data-secret'), 'true', 'the API key is recognised as a secret');
    const token = item('github').locator('.import-value[data-name=GITHUB_PERSONAL_ACCESS_TOKEN]');
    assert.equal(await token.getAttribute('data-placeholder'), 'true', '<YOUR_TOKEN> is to be filled in after adding');
    assert.equal((await api(maru.base, 'GET', '/api/tool-servers')).length, 0, 'a preview adds nothing');
    await page.screenshot({ path: path.join(outDir, 'mcpimport-preview.png') });
  });

  await step('unticking github and adding adds the other two at once, the key kept unseen', async () => {
    await item('github').getByTestId('import-choose').uncheck();
    const add = form.getByTestId('import-add');
    assert.equal(await add.textContent(), 'Add 2 servers');
    await add.click();
    await form.waitFor({ state: 'detached' });
    await pane.locator('[data-testid=tool-server][data-name=brave-search]').waitFor();
    const listed = await pane.locator('[data-testid=tool-server]').evaluateAll((els) => els.map((e) => e.dataset.name));
    assert.deepEqual(listed, ['filesystem', 'brave-search']);
    const servers = await api(maru.base, 'GET', '/api/tool-servers');
    assert.deepEqual(servers.find((s) => s.name === 'brave-search').env_keys, ['BRAVE_API_KEY'], 'its variable is kept, by name');
    const html = await page.content();
    assert.ok(!html.includes(SECRET) && !JSON.stringify(servers).includes(SECRET), 'the key is on neither the page nor the API');
  });

  await step('a whole command line in Command is split before saving, and saved split', async () => {
    await pane.getByTestId('add-tool-server').click();
    const f = pane.getByTestId('tool-server-form');
    await f.getByTestId('tool-server-name').fill('weather');
    await f.getByTestId('tool-server-command').fill('node "/home/me/My Servers/weather/index.js" stdio');
    await f.getByTestId('tool-server-save').click();
    await f.getByTestId('tool-server-split').waitFor();
    assert.equal(await f.getByTestId('tool-server-command').inputValue(), 'node');
    assert.equal(await f.getByTestId('tool-server-args').inputValue(), '/home/me/My Servers/weather/index.js\nstdio', 'each argument on its line, the quoted path whole');
    await page.screenshot({ path: path.join(outDir, 'mcpimport-split.png') });
    assert.equal((await api(maru.base, 'GET', '/api/tool-servers')).length, 2, 'the first Save only showed the split');
    await f.getByTestId('tool-server-save').click();
    await pane.locator('[data-testid=tool-server][data-name=weather]').waitFor();
    const weather = (await api(maru.base, 'GET', '/api/tool-servers')).find((s) => s.name === 'weather');
    assert.deepEqual([weather.command, weather.args], ['node', ['/home/me/My Servers/weather/index.js', 'stdio']]);
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
