import { html, nothing, render } from "lit/html.js";
import { ApiError } from "../api/api-error.ts";
import type { AgentHealth, ProjectTree, TelemetryPayload } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { LiveTable } from "../live/live-table.ts";
import { TrendPanel } from "./trend-panel.ts";

type Asset = ProjectTree["assets"][number];

/** Enough payloads to find each variable's latest value when devices are polled at different rates. */
const LATEST_PAYLOADS = 100;
const HEALTH_REFRESH_MS = 15_000;

/**
 * A project's asset tree and, for the chosen asset, its variables with live values from the
 * WebSocket stream, and a trend per variable.
 */
function renderProject(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n, api } = ctx;
  const projectId = params.path.projectId ?? "";
  const layout = document.createElement("div");
  layout.className = "project-layout";
  const tree = document.createElement("nav");
  tree.className = "asset-tree";
  tree.setAttribute("aria-label", i18n.t("project.assets"));
  const panel = document.createElement("section");
  panel.className = "asset-panel";
  const header = document.createElement("div");
  const tableHost = document.createElement("div");
  tableHost.className = "table-scroll";
  const trendHost = document.createElement("section");
  trendHost.className = "trend";
  panel.append(header, tableHost, trendHost);
  layout.append(tree, panel);
  const title = document.createElement("div");
  host.append(title, layout);

  let disposed = false;
  const cleanups: (() => void)[] = [];
  render(html`<p aria-busy="true">${i18n.t("common.loading")}</p>`, title);

  const showAsset = (project: ProjectTree, asset: Asset, health: AgentHealth | null) => {
    const table = new LiveTable(i18n, ctx.formats, (variable) => trend.select(variable));
    for (const device of asset.devices) {
      for (const v of device.variables) {
        table.addRow({
          variable: v.alias,
          unit: v.unit,
          deviceId: device.id,
          pollMs: v.poll_interval_ms,
          enabled: v.enabled && device.enabled,
        });
      }
    }
    const deviceStates = (h: AgentHealth | null) =>
      new Map((h?.devices ?? []).map((d) => [d.device_id, d.state]));
    table.setDeviceStates(deviceStates(health));
    tableHost.replaceChildren(table.element);
    table.start();
    const trend = new TrendPanel(trendHost, ctx, {
      assetId: asset.id,
      timeZone: project.timezone,
      unitOf: (v) => table.unitOf(v),
    });

    // Live first, then the latest stored values: a message that arrives meanwhile is never lost,
    // and an older stored value never overwrites it (LiveTable keeps the newest per variable).
    const latest = () =>
      api
        .get<TelemetryPayload[]>(`/api/telemetry/${asset.id}`, { limit: LATEST_PAYLOADS })
        .then((payloads) => {
          for (const p of payloads) table.push(Date.parse(p.timestamp), p.readings);
        });
    const off = ctx.stream.onMessage((m) => {
      if (m.type === "telemetry" && m.asset_id === asset.id) table.push(Date.parse(m.timestamp), m.readings);
      // The server discarded messages this page read too slowly: catch up from the stored values.
      else if (m.type === "dropped") void latest().catch(() => undefined);
    });
    void latest()
      .then(() => {
        const first = table.variables[0];
        if (first && !disposed) trend.select(first);
      })
      .catch(() => undefined);
    const healthTimer = setInterval(() => {
      void api.get<AgentHealth>(`/api/edge/agents/${project.id}/health`).then(
        (h) => table.setDeviceStates(deviceStates(h)),
        () => undefined,
      );
    }, HEALTH_REFRESH_MS);
    cleanups.push(
      off,
      () => table.stop(),
      () => trend.destroy(),
      () => clearInterval(healthTimer),
    );

    render(
      html`<h2>${asset.name} <span class="badge">${i18n.t(`assetType.${asset.asset_type}`)}</span></h2>
        <p class="muted">${i18n.t("asset.devices", { count: asset.devices.length })}
          · ${asset.devices.map((d) => `${d.name} (${d.protocol})`).join(", ") || "—"}</p>`,
      header,
    );
  };

  const load = async () => {
    try {
      const [project, health] = await Promise.all([
        api.get<ProjectTree>(`/api/edge/projects/${projectId}/full`),
        api.get<AgentHealth>(`/api/edge/agents/${projectId}/health`).catch(() => null),
      ]);
      if (disposed) return;
      const assetId = params.path.assetId ?? project.assets[0]?.id;
      const asset = project.assets.find((a) => a.id === assetId);
      render(
        html`<h1>${project.name}</h1>
          <p class="muted">${project.location ?? ""} ${project.location ? "·" : ""} ${i18n.t("project.timezone", { zone: project.timezone })}</p>`,
        title,
      );
      render(
        html`<h2 class="visually-hidden">${i18n.t("project.assets")}</h2>
          ${
            project.assets.length === 0
              ? html`<p>${i18n.t("project.noAssets")}</p>`
              : html`<ul>
                ${project.assets.map(
                  (a) => html`<li>
                    <a href="#/projects/${project.id}/assets/${a.id}" aria-current=${a === asset ? "page" : "false"}>
                      ${a.name}</a>
                    <span class="muted">${i18n.t(`assetType.${a.asset_type}`)}</span>
                    ${
                      a === asset && a.devices.length > 0
                        ? html`<ul>${a.devices.map(
                            (d) =>
                              html`<li>${d.name} <span class="muted">${i18n.t("project.variableCount", { count: d.variables.length })}</span></li>`,
                          )}</ul>`
                        : nothing
                    }
                  </li>`,
                )}
              </ul>`
          }`,
        tree,
      );
      if (asset) showAsset(project, asset, health);
      else if (params.path.assetId)
        render(html`<p role="alert">${i18n.t("project.assetNotFound")}</p>`, header);
    } catch (err) {
      const key = err instanceof ApiError && err.status === 404 ? "project.notFound" : "common.failed";
      render(
        html`<h1>${i18n.t("project.title")}</h1><p class="error" role="alert">${i18n.t(key, { message: err instanceof Error ? err.message : "" })}</p>`,
        title,
      );
    }
  };
  void load();
  return () => {
    disposed = true;
    for (const c of cleanups) c();
  };
}

const requires = ["projects:read", "config:read", "telemetry:read"] as const;

export const projectPage: PageDef = {
  id: "project",
  path: "/projects/:projectId",
  titleKey: "project.title",
  requires,
  render: renderProject,
};

export const assetPage: PageDef = {
  id: "asset",
  path: "/projects/:projectId/assets/:assetId",
  titleKey: "asset.title",
  requires,
  render: renderProject,
};
