// Browser end-to-end: a model server's new address in the settings is checked as soon as it is
// saved (the error about the old one does not linger, no hunting for a refresh button), the
// default model's button says what it does in both languages, and the app's version stays inside
// the sidebar however narrow the sidebar is.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL } from './fake-openai.mjs';
import { api, freePort, outDir, setUp, sleep, TOKEN } from './harness.mjs';

/** A version string as long as a development build's. */
const LONG_VERSION = '0.1.0-dev.20261201+g0123456789abcdef.dirty';

/** Where the version is, against the sidebar's box, at each width of the sidebar. */
function versionBoxes(page, widths) {
  return page.evaluate(async (widths) => {
    const out = [];
    for (const w of widths) {
      document.documentElement.style.setProperty('--sidebar-w', `${w}px`);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const side = document.querySelector('.sidebar').getBoundingClientRect();
      const foot = document.querySelector('.sidebar-foot');
      const el = document.querySelector('.sidebar-foot .version');
      const v = el.getBoundingClientRect();
      out.push({
        width: w, side: { left: side.left, right: side.right }, version: { left: v.left, right: v.right, width: v.width },
        text: el.textContent, title: el.title, visible: el.checkVisibility(), cut: el.scrollWidth > el.clientWidth + 1,
        footOverflow: foot.scrollWidth - foot.clientWidth,
      });
    }
    document.documentElement.style.removeProperty('--sidebar-w');
    return out;
  }, widths);
}

function assertInside(boxes, what) {
  for (const b of boxes) {
    assert.ok(b.visible && b.version.width > 10, `${what}, sidebar ${b.width} px: the version shows`);
    assert.ok(b.version.left >= b.side.left && b.version.right <= b.side.right,
      `${what}, sidebar ${b.width} px: the version spans ${Math.round(b.version.left)}–${Math.round(b.version.right)} px, outside the sidebar (${Math.round(b.side.left)}–${Math.round(b.side.right)})`);
    assert.ok(b.footOverflow <= 1, `${what}, sidebar ${b.width} px: nothing in the sidebar's foot is pushed out (${b.footOverflow} px over)`);
    if (b.cut) assert.ok(b.title.includes(b.text.slice(1)), `${what}: a cut version is whole on hover`);
  }
}

test('settings: a new model server address is checked at once; the version stays in the sidebar', { timeout: 120_000 }, async (t) => {
  const { fake, maru, page, pageErrors, step } = await setUp(t, 'settings', { pieceDelayMs: 5 });
  const closed = await freePort();
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: `http://127.0.0.1:${closed}/v1`, model: MODEL });
  const dialog = page.locator('dialog[open]');
  const status = dialog.getByTestId('models-status');
  const server = dialog.getByTestId('server').first();

  /** Edits the default server's address and saves it with Enter. */
  async function readdress(url) {
    await server.getByTestId('server-edit').click();
    const address = server.getByTestId('server-address');
    await address.fill(url);
    await address.press('Enter');
    await server.getByTestId('server-form').waitFor({ state: 'detached' });
  }

  await step('a new address is checked as soon as it is saved: its models show, the old error goes', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    await page.getByTestId('open-settings').click();
    await server.getByTestId('server-error').filter({ hasText: `127.0.0.1:${closed}` }).waitFor();
    assert.equal(await server.getByTestId('server-status').innerText(), 'Not answering', 'the old address does not answer: said in a word, and why beside it');
    assert.match(await status.getAttribute('class'), /field-error/, 'the default model\'s list says why it is empty');
    await readdress(fake.baseUrl);
    await server.getByTestId('server-status').filter({ hasText: '1 model' }).waitFor({ timeout: 5000 });
    assert.equal(await server.getByTestId('server-error').count(), 0, 'the error about the old address is gone');
    await status.filter({ hasText: `1 model at ${fake.baseUrl}` }).waitFor({ timeout: 5000 });
    assert.doesNotMatch(await status.getAttribute('class'), /field-error/);
    const options = await dialog.getByTestId('model-select').locator('option').allInnerTexts();
    assert.ok(options.some((o) => o.startsWith(MODEL)), `the new server's model is offered (${options.join(', ')})`);
    assert.equal((await api(maru.base, 'GET', '/api/settings')).endpoint_url, fake.baseUrl, 'the address was saved: the models come from there');
    const button = dialog.getByTestId('check-server');
    assert.equal((await button.innerText()).trim(), 'Refresh list', 'the button next to the models says what it does');
    assert.equal(await button.getAttribute('title'), 'Check the server and list its models');
    await page.screenshot({ path: path.join(outDir, 'settings-address-checked.png') });
  });

  await step('a wrong address says so at once, and the dialog stays', async () => {
    await readdress(`http://127.0.0.1:${closed}/v1`);
    await server.getByTestId('server-error').filter({ hasText: `127.0.0.1:${closed}` }).waitFor({ timeout: 10_000 });
    assert.ok(await dialog.isVisible(), 'Enter in the field does not close the dialog');
    await readdress(fake.baseUrl);
    await server.getByTestId('server-status').filter({ hasText: '1 model' }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await step('in Korean, the button and its tooltip are in Korean', async () => {
    await api(maru.base, 'PATCH', '/api/settings', { language: 'ko' });
    await page.reload();
    await page.getByTestId('open-settings').click();
    const button = dialog.getByTestId('check-server');
    assert.equal((await button.innerText()).trim(), '목록 새로 고침');
    assert.equal(await button.getAttribute('title'), '서버를 확인하고 모델 목록 가져오기');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  const widths = [180, 200, 230, 272, 340];
  await step('the version stays inside the sidebar at any width, in Korean and in English', async () => {
    await page.locator('.sidebar-foot .version').waitFor();
    assertInside(await versionBoxes(page, widths), 'Korean');
    await api(maru.base, 'PATCH', '/api/settings', { language: 'en' });
    await page.reload();
    await page.locator('.sidebar-foot .version').waitFor();
    assertInside(await versionBoxes(page, widths), 'English');
  });

  await step('a long version too, and in the drawer of a narrow window', async () => {
    await page.route('**/api/health', async (route) => {
      const response = await route.fetch();
      route.fulfill({ response, json: { ...(await response.json()), version: LONG_VERSION } });
    });
    await page.reload();
    await page.locator('.sidebar-foot .version').filter({ hasText: 'v0.1.0-dev' }).waitFor();
    assertInside(await versionBoxes(page, widths), 'a long version');
    await page.setViewportSize({ width: 360, height: 700 });
    await sleep(300);
    await page.locator('.sidebar-toggle').click();
    await sleep(300);
    await page.screenshot({ path: path.join(outDir, 'sidebar-version-drawer.png') });
    assertInside(await versionBoxes(page, [272]), 'the drawer of a 360 px window');
    await page.unroute('**/api/health');
  });

  assert.deepEqual(pageErrors, [], 'no page errors');
});
