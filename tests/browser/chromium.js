// Debian's Chromium, headless, driven through the DevTools protocol by
// playwright-core (no browser download: executablePath is the system one).
// The flags keep a root, offline CI machine from hanging on network
// lookups; playwright gives each launch a fresh user-data-dir.
'use strict';

const fs = require('fs');
const path = require('path');

const CHROMIUM = process.env.GLASSBOX_CHROMIUM || '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

function chromiumPresent() { return fs.existsSync(CHROMIUM); }

async function launch() {
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

// Opens `file` in a new page and waits until the report script has run.
// Returns the page and what went wrong on the way: console errors, page
// errors, and any request at all (the page must load nothing).
async function openReport(browser, file, viewport = { width: 1280, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    if (!req.url().startsWith('file:')) problems.push(`request: ${req.url()}`);
  });
  await page.goto(`file://${path.resolve(file)}`);
  await page.waitForFunction(() => window.glassboxReport && window.glassboxReport.done, null, { timeout: 20000 });
  return { page, problems };
}

module.exports = { chromiumPresent, launch, openReport, CHROMIUM };
