import assert from 'node:assert/strict';
import type { FrameLocator, Locator, Page } from 'playwright-core';

/**
 * What a person does in the Temporal Web UI to decide a goal's approval: read the signal's Data in
 * keel's current details, then More Actions › Send a Signal › approve, paste, Submit. Shared by
 * the browser tests with and without a codec server.
 */

export const UI_TIMEOUT_MS = 20_000;

/** The rendered markdown frame of the current details: the output frame that is not the summary. */
export function currentDetailsFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe[title="output"]:not(#user-metadata-summary)').first();
}

/** The signal Data the current details show for the pending call, as the UI shows it. */
export async function decisionShownInDetails(page: Page): Promise<string> {
  await page.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
  const line = currentDetailsFrame(page).locator('li', { hasText: 'Send a Signal › approve, Data:' }).first();
  const text = await line.locator('code').innerText({ timeout: UI_TIMEOUT_MS });
  assert.doesNotThrow(() => JSON.parse(text), `the details' Data is not JSON: ${text}`);
  return text.trim();
}

/** Sends `approve` with this Data through the Send a Signal dialog, as a person pastes it. */
export async function sendApproveFromWebUi(page: Page, data: string): Promise<void> {
  await page.getByRole('button', { name: 'More Actions' }).click({ timeout: UI_TIMEOUT_MS });
  await page.getByRole('menuitem', { name: 'Send a Signal' }).click({ timeout: UI_TIMEOUT_MS });
  const dialog = page.getByRole('dialog', { name: 'Send a Signal' });
  await dialog.getByRole('button', { name: 'Select a signal' }).click({ timeout: UI_TIMEOUT_MS });
  // The option's name is the signal's name followed by keel's description of it.
  await dialog.getByRole('option', { name: /^approve\b/ }).click({ timeout: UI_TIMEOUT_MS });
  const editor = dialog.getByRole('textbox', { name: 'Data' });
  await pasteInto(page, editor, data);
  // The editor reformats its JSON on blur and the dialog grows under the pointer; once, a Submit
  // clicked while the editor had focus sent nothing. Blurring first lets the layout settle.
  await editor.blur();
  assert.deepEqual(JSON.parse(await editor.innerText()), JSON.parse(data));
  await dialog.getByRole('button', { name: 'Submit' }).click({ timeout: UI_TIMEOUT_MS });
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
}

/** Pastes into an editor as a clipboard paste does, replacing what it held. */
async function pasteInto(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click({ timeout: UI_TIMEOUT_MS });
  // The dialog keeps the last input it was given: select it so the paste replaces it.
  await page.keyboard.press('ControlOrMeta+a');
  await editor.evaluate((element: PageElement, pasted: string) => {
    // Runs in the page; keel's tsconfig has no DOM library, so its globals are typed here.
    const { DataTransfer, ClipboardEvent } = globalThis as unknown as PageClipboardGlobals;
    const clipboardData = new DataTransfer();
    clipboardData.setData('text/plain', pasted);
    element.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
  }, text);
}

/** The few browser types a paste needs. */
interface PageElement {
  dispatchEvent(event: unknown): boolean;
}

interface PageClipboardGlobals {
  DataTransfer: new () => { setData(format: string, data: string): void };
  ClipboardEvent: new (
    type: 'paste',
    init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean },
  ) => unknown;
}
