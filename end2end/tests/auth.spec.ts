import { test, expect } from "../support/fixtures";
import { startServer, type RunningServer } from "../support/binary";
import { connected } from "../support/ui";

const email = "beheer@nvwa.nl";
const password = "correct horse battery staple";
let server: RunningServer;

// Signed out, the page's requests still in flight (the thread list, the socket) are refused:
// the browser logs those 401s.
test.use({ allowedConsoleErrors: [/status of 401/] });
// The sign-in page speaks the browser's language (no one is signed in yet): a Dutch browser.
test.use({ locale: "nl-NL" });

test.beforeAll(async () => {
  server = await startServer(["--auth", "users", "--admin-email", email, "--admin-password", password]);
});

test.afterAll(async () => {
  await server.dispose();
});

test("an inspector signs in, uses HAI and signs out", async ({ page }) => {
  await page.goto(`${server.url}/`);
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("heading", { name: "Inloggen" })).toBeVisible();
  await page.screenshot({ path: "screenshots/auth-login.png", fullPage: true });

  await page.getByLabel("E-mailadres").fill(email);
  await page.getByLabel("Wachtwoord").fill("not the password");
  await page.getByRole("button", { name: "Inloggen" }).click();
  await expect(page.getByRole("alert")).toContainText("onjuist wachtwoord");
  await page.screenshot({ path: "screenshots/auth-login-error.png", fullPage: true });

  await page.getByLabel("E-mailadres").fill(email);
  await page.getByLabel("Wachtwoord").fill(password);
  await page.getByRole("button", { name: "Inloggen" }).click();
  await connected(page);
  // Signed in, the page shows the open thread at its own address.
  await expect(page).toHaveURL(new RegExp(`^${server.url}/t/[0-9a-f-]{36}$`));

  await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
  await page.getByRole("button", { name: "Verstuur" }).click();
  await expect(page.getByText("99990001").first()).toBeVisible();

  // The browser remembers the open thread, until sign-out clears it (Clear-Site-Data): on a
  // shared tablet the next inspector must not find it.
  expect(await page.evaluate(() => localStorage.getItem("hai.threadId"))).not.toBeNull();
  // Signing out asks first (it clears what waits for a connection).
  await page.locator("header summary", { hasText: "Uitloggen" }).click();
  await page.getByRole("button", { name: "Ja, uitloggen" }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem("hai.threadId"))).toBeNull();
  await page.goto(`${server.url}/`);
  await expect(page).toHaveURL(/\/login$/);
  const sessions = await page.request.get(`${server.url}/sessions`);
  expect(sessions.status()).toBe(401);
});
