// A full-page screenshot of a report page (make report-screenshot).
// usage: node screenshot.js PAGE.html OUT.png
'use strict';

const { launch, openReport } = require('./chromium');

(async () => {
  const [file, png] = process.argv.slice(2);
  const browser = await launch();
  try {
    const { page, problems } = await openReport(browser, file, { width: 1280, height: 900 });
    if (problems.length) throw new Error(problems.join('; '));
    await page.screenshot({ path: png, fullPage: true });
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(`screenshot: ${err.stack || err}`);
  process.exit(1);
});
