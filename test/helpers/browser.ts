import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs; the browser tests are skipped without it, except in CI. */
export const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
export const skipBrowser = !haveChromium && process.env.CI !== 'true';
if (skipBrowser) console.warn(`browser tests skipped: ${CHROMIUM} not found`);

/**
 * Every Playwright step (goto, click, screenshot, evaluate) gets this bound, well under a test's own,
 * so a step that stalls on a loaded machine fails under its own name and call log ("waiting for
 * fonts to load…", "waiting for navigation…") instead of hiding behind vitest's "test timed out".
 */
export const STEP_TIMEOUT_MS = 20_000;

/**
 * Headless Chromium as the machine allows it: root needs --no-sandbox, there is no GPU, and the
 * network is closed, so background networking, QUIC, component updates and sync are off (without
 * them Chromium keeps opening connections the machine refuses).
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: STEP_TIMEOUT_MS,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    return page;
  };
  return browser;
}
