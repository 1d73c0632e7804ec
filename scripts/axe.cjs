// Audits pages with axe-core in headless Chromium, each at a desktop width (1280 px), a phone's
// (390 px) and in dark mode: every accessibility violation axe finds, and a page wider than
// the window. Prints one line per finding; exits 1 if there is any.
//
//   node scripts/axe.cjs URL...        (scripts/axe.sh installs axe-core and puppeteer-core
//                                       and audits every page of a study it serves)
"use strict";

const puppeteer = require("puppeteer-core");
const axe = require("axe-core");

const VIEWS = [
  { width: 1280, scheme: "light" },
  { width: 390, scheme: "light" },
  { width: 1280, scheme: "dark" },
];

async function audit(browser, url, { width, scheme }) {
  const page = await browser.newPage();
  // axe is injected as a script of the page, which its Content-Security-Policy would refuse.
  await page.setBypassCSP(true);
  await page.setViewport({ width, height: 900 });
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
  const response = await page.goto(url, { waitUntil: "networkidle0" });
  const findings = [];
  if (!response || !response.ok()) {
    findings.push(`HTTP ${response ? response.status() : "no answer"}`);
  }
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    window.axe.run(document, { resultTypes: ["violations"] }));
  for (const violation of result.violations) {
    const where = violation.nodes.map((node) => node.target.join(" ")).join(", ");
    findings.push(`${violation.id} (${violation.impact}, ${violation.nodes.length}): ${violation.help}: ${where}`);
  }
  const overflow = await page.evaluate(() =>
    document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (overflow > 0) {
    findings.push(`wider than the window by ${overflow} px`);
  }
  await page.close();
  return findings;
}

(async () => {
  const urls = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  let failed = 0;
  try {
    for (const url of urls) {
      for (const view of VIEWS) {
        const findings = await audit(browser, url, view);
        failed += findings.length;
        const mark = findings.length === 0 ? "ok  " : "FAIL";
        console.log(`${mark} ${view.width}px ${view.scheme.padEnd(5)} ${url}`);
        for (const finding of findings) {
          console.log(`     ${finding}`);
        }
      }
    }
  } finally {
    await browser.close();
  }
  process.exit(failed === 0 ? 0 : 1);
})().catch((error) => {
  console.error(error);
  process.exit(2);
});
