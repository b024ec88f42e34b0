import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry as PromRegistry,
  type Registry,
} from "prom-client";

/**
 * A registry per server, never prom-client's global one: tests run several servers in one
 * process, and later features (the broker, agent sessions) register their own metrics on it.
 */
export function createMetricsRegistry(): Registry {
  const registry = new PromRegistry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The route PATTERN a request matched (`/api/admin/users/:id`), so label cardinality stays bounded
 * whatever paths clients send. Middleware registered with `use()` (method ALL) is skipped: a request
 * whose only matches are middleware reached no endpoint and is "unmatched".
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route && route.method !== "ALL") return route.path;
  }
  return "unmatched";
}

const LABELS = ["method", "route", "status"] as const;
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Counts and times every request, after the response (including error responses) is final. */
export function httpMetrics(registry: Registry): MiddlewareHandler {
  const { requests, duration } = httpInstruments(registry);
  return async (c, next) => {
    const started = performance.now();
    await next();
    const method = METHODS.has(c.req.method) ? c.req.method : "OTHER";
    const labels = { method, route: routeLabel(c), status: String(c.res.status) };
    requests.inc(labels);
    duration.observe(labels, (performance.now() - started) / 1000);
  };
}

type HttpInstruments = {
  requests: Counter<(typeof LABELS)[number]>;
  duration: Histogram<(typeof LABELS)[number]>;
};
const instruments = new WeakMap<Registry, HttpInstruments>();

/** One set per registry: a second app on the same registry must not register the names twice. */
function httpInstruments(registry: Registry): HttpInstruments {
  const existing = instruments.get(registry);
  if (existing) return existing;
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, matched route pattern and status",
    labelNames: LABELS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to produce the HTTP response, by method, matched route pattern and status",
    labelNames: LABELS,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const created = { requests, duration };
  instruments.set(registry, created);
  return created;
}

type MetricJson = MetricObjectWithValues<MetricValue<string>>;

/** prom-client's JSON as another thread sent it (getMetricsAsJSON()); the cast is in one place. */
const asMetricJson = (json: unknown[]): MetricJson[] => json as MetricJson[];

/**
 * The registry's exposition, with the families that other threads (HTTP workers) also count
 * summed across threads, as prom-client's cluster aggregation does; the rest as they are.
 */
export async function metricsText(registry: Registry, others: readonly unknown[][]): Promise<string> {
  const more = others.map(asMetricJson).filter((json) => json.length > 0);
  if (more.length === 0) return registry.metrics();
  const shared = new Set(more.flatMap((json) => json.map((m) => m.name)));
  const own = (await registry.getMetricsAsJSON()).filter((m) => shared.has(m.name));
  const summed = AggregatorRegistry.aggregate([own, ...more]);
  const parts: string[] = [];
  for (const metric of registry.getMetricsAsArray()) {
    const name = metric.name;
    parts.push(await (shared.has(name) ? summed : registry).getSingleMetricAsString(name));
  }
  return `${parts.join("\n\n")}\n`;
}
