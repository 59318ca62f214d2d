// Render time of report pages in headless Chromium: milliseconds from
// navigation start until the page's script has drawn every chart
// (window.glassboxReport.renderedMs), the median of REPEATS fresh loads.
// Prints one line per page: "<page> <median ms> <page MB>".
//
// usage: node measure_render.js REPEATS PAGE.html...
'use strict';

const fs = require('fs');
const { launch, openReport } = require('./chromium');

(async () => {
  const [repeats, ...pages] = process.argv.slice(2);
  const browser = await launch();
  try {
    for (const file of pages) {
      const times = [];
      for (let i = 0; i < Number(repeats); i++) {
        const { page, problems } = await openReport(browser, file);
        if (problems.length) throw new Error(`${file}: ${problems.join('; ')}`);
        times.push(await page.evaluate(() => window.glassboxReport.renderedMs));
        await page.close();
      }
      times.sort((a, b) => a - b);
      const mb = fs.statSync(file).size / 1e6;
      console.log(`${file} ${times[Math.floor(times.length / 2)].toFixed(0)} ${mb.toFixed(1)}`);
    }
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(`measure_render: ${err.stack || err}`);
  process.exit(1);
});
