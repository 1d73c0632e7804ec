// Takes the pictures of docs/ in headless Chromium: each page whole, 1280 px wide, light.
//
//   node scripts/screenshots.cjs URL=FILE...   (scripts/screenshots.sh serves the studies)
"use strict";

const puppeteer = require("puppeteer-core");

(async () => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    for (const pair of process.argv.slice(2)) {
      const split = pair.lastIndexOf("=");
      const [url, file] = [pair.slice(0, split), pair.slice(split + 1)];
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
      const response = await page.goto(url, { waitUntil: "networkidle0" });
      if (!response || !response.ok()) {
        throw new Error(`${url}: HTTP ${response ? response.status() : "no answer"}`);
      }
      await page.screenshot({ path: file, fullPage: true });
      await page.close();
      console.log(`${file} <- ${url}`);
    }
  } finally {
    await browser.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(2);
});
