import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import {
  BROWSER_TEST_TIMEOUT_MS,
  eventually,
  guardedPage,
  screenshot,
  VIEWPORTS,
} from "./testing/browser.ts";
import { expectBearerOnChanges } from "./testing/compliance-data.ts";
import { codeFor, consoleField, signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type User = { id: string; email: string; role: string; projects: string[]; two_factor_enabled: boolean };

requirePeer("chromium", chromiumMissing).describe("the administration pages, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let f: Awaited<ReturnType<typeof consoleField>>;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    f = await consoleField(t);
  });
  afterAll(async () => stop?.());

  /** A new admin, signed in, who follows the links to two-factor and starts its set-up. */
  async function twoFactorSetUp() {
    const admin = await t.userWithRole("admin");
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Administration" })
      .click();
    await g.page.getByRole("link", { name: "My two-factor" }).click();
    await g.page.getByTestId("two-factor-status").getByText("Two-factor off").waitFor();
    await g.page.getByRole("button", { name: "Set up two-factor" }).click();
    const qr = g.page.getByRole("img", { name: "QR code for your authenticator app" });
    await qr.waitFor();
    const secret = (await g.page.getByTestId("two-factor-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    return { admin, g, qr, secret };
  }

  it("an admin sets up two-factor from the page: QR code, a TOTP computed here, recovery codes shown once", async () => {
    const { admin, g, qr, secret } = await twoFactorSetUp();
    expect(await qr.locator("path").getAttribute("d")).toMatch(/^(M\d+ \d+h\d+v1h-\d+z)+$/);
    await screenshot(g.page, "two-factor-setup-en", "laptop");
    await g.page.setViewportSize(VIEWPORTS.tablet);
    await screenshot(g.page, "two-factor-setup-en", "tablet");
    await g.page.setViewportSize(VIEWPORTS.laptop);

    // A wrong code is refused with a message, and the session goes on.
    const right = codeFor(t, secret, 0);
    await g.page.getByLabel("Authentication code").fill(right === "000000" ? "111111" : "000000");
    await g.page.getByRole("button", { name: "Turn on two-factor" }).click();
    await eventually(() => g.page.getByTestId("two-factor-error").textContent()).toBe(
      "The code is not valid. Check your authenticator app and try again.",
    );
    expect(await g.page.getByTestId("role").textContent()).toBe("Admin");

    await g.page.getByLabel("Authentication code").fill(codeFor(t, secret, 0));
    await g.page.getByRole("button", { name: "Turn on two-factor" }).click();
    const codes = g.page.getByTestId("recovery-codes").locator("li");
    await eventually(() => codes.count()).toBe(10);
    const recovery = (await codes.allTextContents()).map((c) => c.trim());
    await g.page.getByTestId("two-factor-status").getByText("Two-factor on").waitFor();
    const me = await t.request<User>(`/api/admin/users/${admin.id}`, { token: f.admin.token });
    expect(me.body.two_factor_enabled).toBe(true);
    // Shown once: gone when dismissed, and nowhere on the page after.
    await g.page.getByRole("button", { name: "I have kept them" }).click();
    expect(await g.page.getByTestId("recovery-codes").count()).toBe(0);
    expect(await g.page.innerText("body")).not.toContain(recovery[0] ?? "-");
    expectBearerOnChanges(g);
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
    await g.close();

    // Two-factor is on for real: the password alone is challenged, a recovery code from the page signs in.
    const challenged = await t.login(admin.email, admin.password);
    expect(challenged.status).toBe(401);
    expect(challenged.body).toMatchObject({ requires_2fa: true });
    const withCode = await t.login(admin.email, admin.password, { recovery_code: recovery[0] ?? "" });
    expect(withCode.status, withCode.text).toBe(200);
  });

  it("switching the language during two-factor set-up keeps the secret, the QR code, the code typed and the recovery codes", async () => {
    const { admin, g, qr, secret } = await twoFactorSetUp();
    const modules = await qr.locator("path").getAttribute("d");
    await g.page.getByLabel("Authentication code", { exact: true }).fill("12");

    await g.page.getByTestId("language").selectOption("es");
    await g.page
      .getByRole("heading", { name: "Escanee el código con su aplicación de autenticación" })
      .waitFor();
    expect(await g.page.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Mi autenticación de doble factor",
    );
    expect(await g.page.title()).toBe("Mi autenticación de doble factor · Caudal");
    expect(await g.page.evaluate("document.documentElement.lang")).toBe("es");
    expect(await g.page.getByTestId("two-factor-secret").textContent()).toBe(secret);
    // The same QR code, now named in Spanish.
    const qrEs = g.page.getByRole("img", { name: "Código QR para su aplicación de autenticación" });
    expect(await qrEs.locator("path").getAttribute("d")).toBe(modules);
    const code = g.page.getByLabel("Código de autenticación", { exact: true });
    expect(await code.inputValue()).toBe("12");

    // The set-up goes on in Spanish with the secret shown before the switch.
    await code.fill(codeFor(t, secret, 0));
    await g.page.getByRole("button", { name: "Activar el doble factor" }).click();
    const codes = g.page.getByTestId("recovery-codes").locator("li");
    await eventually(() => codes.count()).toBe(10);
    const shown = await codes.allTextContents();
    // Recovery codes are shown once: switching back keeps them, and the notice follows the language.
    await g.page.getByTestId("language").selectOption("en");
    await g.page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
    expect(await codes.allTextContents()).toEqual(shown);
    await g.page.getByRole("status").getByText("Two-factor authentication is on.").waitFor();
    expect(await g.page.title()).toBe("My two-factor authentication · Caudal");
    const me = await t.request<User>(`/api/admin/users/${admin.id}`, { token: f.admin.token });
    expect(me.body.two_factor_enabled).toBe(true);
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
    await g.close();
  });

  it("an admin creates a user, with the API's refusal beside the field, then assigns a project and a role", async () => {
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, f.admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/admin/users`);
    const form = g.page.getByTestId("user-new");
    const email = `ana-${Date.now()}@campo.test`;
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Name").fill("Ana Ríos");
    await form.getByLabel("Role").selectOption("operador");
    await form.getByLabel("Password").fill("short");
    await form.getByRole("button", { name: "Create user" }).click();
    await eventually(() => g.page.locator("#user-new-password-error").textContent()).toBe(
      "must be at least 8 characters",
    );
    await form.getByLabel("Password").fill("a long enough password");
    await form.getByRole("button", { name: "Create user" }).click();
    await g.page.getByText(`User ${email} created. Assign their projects below.`).waitFor();
    const row = g.page.locator(`[data-user="${email}"]`);
    expect(await row.textContent()).toContain("Operator");

    const panel = g.page.getByTestId("user-edit-panel");
    const project = await t.request<{ name: string }>(`/api/edge/projects/${f.projectId}`, {
      token: f.admin.token,
    });
    await panel.getByLabel(project.body.name).check();
    await panel.getByRole("button", { name: "Save projects" }).click();
    await g.page.getByText(`Projects of ${email} saved.`).waitFor();
    await eventually(() => row.textContent()).toContain(project.body.name);

    // The API replaces the password with every change: the same one keeps it.
    const edit = g.page.getByTestId("user-edit");
    await edit.getByLabel("Role").selectOption("supervisor");
    await edit.getByLabel("Password", { exact: true }).fill("a long enough password");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await g.page.getByText(`User ${email} saved.`).waitFor();
    await eventually(() => row.textContent()).toContain("Supervisor");

    const users = await t.request<User[]>("/api/admin/users", { token: f.admin.token });
    expect(users.body.find((u) => u.email === email)).toMatchObject({
      role: "supervisor",
      projects: [f.projectId],
    });
    expect((await t.login(email, "a long enough password")).status).toBe(200);
    expectBearerOnChanges(g);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("billing: usage and invoices; the all-projects summary for the superadmin only", async () => {
    const admin = await t.userWithRole("admin");
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/admin/billing?project=${f.projectId}`);
    await g.page.getByTestId("billing-usage").waitFor();
    await g.page.getByTestId("invoices").waitFor();
    expect(await g.page.getByTestId("billing-usage").textContent()).toContain("Starter");
    expect(await g.page.getByTestId("billing-summary").count()).toBe(0);
    expect(g.requests.some((r) => r.url.pathname === "/api/billing/admin/summary")).toBe(false);
    await g.close();

    const s = await guardedPage(browser, t.baseUrl);
    await signIn(s.page, t.baseUrl, f.admin);
    await s.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await s.page.goto(`${t.baseUrl}/#/admin/billing?project=${f.projectId}`);
    const summary = s.page.getByTestId("billing-summary");
    await summary.waitFor();
    const api = await t.request<{ active_subscriptions: number }>("/api/billing/admin/summary", {
      token: f.admin.token,
    });
    expect(await summary.textContent()).toContain(`Active subscriptions${api.body.active_subscriptions}`);
    expect(s.errors).toEqual([]);
    await s.close();
  });

  it("a supervisor and an operator see no administration, and ask the API nothing of it", async () => {
    for (const user of [f.supervisor, f.operador]) {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, user);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      const nav = await g.page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
      expect(nav).toContain("Compliance");
      expect(nav).not.toContain("Administration");
      for (const path of ["/admin/users", "/admin/two-factor", "/admin/billing"]) {
        await g.page.goto(`${t.baseUrl}/#${path}`);
        await eventually(() => g.page.getByRole("heading", { level: 1 }).textContent(), {
          message: path,
        }).toBe("Not available");
      }
      expect(g.requests.filter((r) => r.url.pathname.startsWith("/api/admin/"))).toEqual([]);
      expect(g.errors).toEqual([]);
      await g.close();
    }
  });
});
