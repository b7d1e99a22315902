// Browser end-to-end: reply versions. Regenerating twice keeps three answers with ‹ n / 3 ›;
// going back to the first and sending again sends the model the first answer only; the choice
// survives a reload; an edit and resend keeps the original message and its replies one version back.
//
// Env: as chat.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { MODEL, NUMBERED_MARKER, textOf } from './fake-openai.mjs';
import { api, outDir, setUp, TOKEN } from './harness.mjs';

test('reply versions: regenerate, switch back, send the chosen branch, edit and resend', { timeout: 120_000 }, async (t) => {
  const { fake, maru, page, step } = await setUp(t, 'versions', { pieceDelayMs: 20 });
  await api(maru.base, 'PATCH', '/api/settings', { endpoint_url: fake.baseUrl, model: MODEL });
  const reply = () => page.getByTestId('message-assistant').last();
  const versionAt = (message) => message.getByTestId('version-at');
  const settled = () => page.getByTestId('message-live').waitFor({ state: 'detached', timeout: 30_000 });

  await step('a first answer, then two more with Regenerate: the reply shows 3 / 3', async () => {
    await page.goto(`${maru.base}/#token=${TOKEN}`);
    const composer = page.getByTestId('composer');
    await composer.fill(`Pick a number ${NUMBERED_MARKER}`);
    await composer.press('Enter');
    await reply().filter({ hasText: 'Answer 1.' }).waitFor({ timeout: 30_000 });
    await settled();
    assert.equal(await reply().getByTestId('versions').count(), 0, 'one answer: no switcher yet');
    for (const n of [2, 3]) {
      await page.getByTestId('regenerate').click();
      await page.getByTestId('message-live').waitFor();
      await settled();
      await reply().filter({ hasText: `Answer ${n}.` }).waitFor();
      assert.equal(await versionAt(reply()).innerText(), `${n} / ${n}`, 'the newest answer is shown, the earlier ones counted');
    }
    assert.equal(await page.getByTestId('message-assistant').count(), 1, 'one reply shown, however many versions it has');
  });

  await step('back to the first answer with ‹', async () => {
    const previous = reply().getByRole('button', { name: 'Previous version' });
    await previous.click();
    await versionAt(reply()).filter({ hasText: '2 / 3' }).waitFor();
    await reply().filter({ hasText: 'Answer 2.' }).waitFor();
    await previous.click();
    await versionAt(reply()).filter({ hasText: '1 / 3' }).waitFor();
    await reply().filter({ hasText: 'Answer 1.' }).waitFor();
    assert.ok(await previous.isDisabled(), 'nothing before the first version');
    await page.screenshot({ path: path.join(outDir, 'versions-first-of-three.png') });
  });

  await step('the choice is kept: after a reload the first answer is still shown', async () => {
    await page.reload();
    await reply().filter({ hasText: 'Answer 1.' }).waitFor();
    assert.equal(await versionAt(reply()).innerText(), '1 / 3');
  });

  await step('sending now: the request carries the first answer and no other', async () => {
    const composer = page.getByTestId('composer');
    await composer.fill(`And another ${NUMBERED_MARKER}`);
    await composer.press('Enter');
    await reply().filter({ hasText: 'Answer 4.' }).waitFor({ timeout: 30_000 });
    await settled();
    const sent = fake.requests.at(-1).messages.slice(1).map(textOf);
    assert.equal(sent.length, 3, `the model reads one branch: ${JSON.stringify(sent)}`);
    assert.equal(sent[1], 'Answer 1.', 'the answer chosen is the one the model reads');
    assert.ok(!sent.some((m) => m.includes('Answer 2.') || m.includes('Answer 3.')), 'the other versions are not sent');
    assert.equal(await page.getByTestId('message-assistant').first().getByTestId('version-at').innerText(), '1 / 3', 'the earlier reply still offers its versions');
  });

  await step('edit and resend the first message: a new version, and the original comes back whole', async () => {
    const first = page.getByTestId('message-user').first();
    await first.hover();
    await first.getByRole('button', { name: 'Edit and resend' }).click();
    await page.locator('.edit-area').fill(`Pick a bigger number ${NUMBERED_MARKER}`);
    await page.getByRole('button', { name: 'Save and send' }).click();
    await reply().filter({ hasText: 'Answer 5.' }).waitFor({ timeout: 30_000 });
    await settled();
    assert.equal(await page.getByTestId('message-user').count(), 1, 'the edit starts a new branch: what followed the original is not shown');
    const edited = page.getByTestId('message-user').first();
    assert.match(await edited.innerText(), /Pick a bigger number/);
    assert.equal(await versionAt(edited).innerText(), '2 / 2');

    await edited.getByRole('button', { name: 'Previous version' }).click();
    await page.getByTestId('message-user').filter({ hasText: 'And another' }).waitFor();
    const texts = await page.locator('[data-testid=message-user], [data-testid=message-assistant]').allInnerTexts();
    assert.equal(texts.length, 4, 'the original branch, as it was left: question, first answer, follow-up, its answer');
    assert.match(texts[1], /Answer 1\./);
    assert.match(texts[3], /Answer 4\./);
    await page.screenshot({ path: path.join(outDir, 'versions-original-branch.png') });
  });
});
