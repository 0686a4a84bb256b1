// The one `test` every spec imports: it fails a test on any uncaught page error or console
// error, in every page the test opens. A test that provokes an error on purpose (a refused
// request the browser logs) names it in `allowedConsoleErrors`.
import { test as base, expect } from "@playwright/test";

export const test = base.extend<{ allowedConsoleErrors: RegExp[]; pageErrors: void }>({
  allowedConsoleErrors: [[], { option: true }],
  pageErrors: [
    async ({ context, allowedConsoleErrors }, use) => {
      // `test.use({ allowedConsoleErrors: [/a/, /b/] })` is read by Playwright as the value /a/
      // with the options /b/; it must be `[[/a/, /b/], { scope: "test" }]`. Said here, at once,
      // instead of as a TypeError inside a console listener.
      if (!Array.isArray(allowedConsoleErrors)) {
        throw new Error('allowedConsoleErrors must be a list: write test.use({ allowedConsoleErrors: [[/a/, /b/], { scope: "test" }] })');
      }
      const errors: string[] = [];
      const watch = (page: import("@playwright/test").Page) => {
        page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
        page.on("console", (message) => {
          if (message.type() !== "error") return;
          const text = message.text();
          if (!allowedConsoleErrors.some((allowed) => allowed.test(text))) {
            errors.push(`console error: ${text}`);
          }
        });
      };
      context.pages().forEach(watch);
      context.on("page", watch);
      await use();
      expect(errors, "the page logged errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
