import type * as PromClientModule from 'prom-client';
import type { Reactor } from '../../../application/serving/reactor.js';

/** Latency buckets in seconds: a cached static hit is well under a millisecond, a save takes seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type MethodClass = 'read' | 'write' | 'other';

interface RequestSeries {
  labels: { mount: string; method: MethodClass; status: string };
  requests: number;
  bytes: number;
}

interface LatencySeries {
  mount: string;
  /** Cumulative counts per bucket are made at scrape time; these are per bucket, the last one +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

/** One metric as prom-client's registry reads it; `aggregator` says how the processes of one reactor (`--workers`) add up. */
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
  aggregator: 'sum' | 'min';
}

interface Exposer {
  metrics(): Promise<string>;
  getMetricsAsJSON(): Promise<object[]>;
  contentType: string;
}

type PromClient = typeof PromClientModule;

/**
 * Prometheus metrics of a reactor. Requests are counted here, in plain maps, on every
 * request; prom-client is loaded on the first scrape, where it adds the process metrics and
 * writes the text exposition of these counts: a reactor nobody scrapes never loads it, and
 * the hot path never hashes label sets.
 */
export class RequestMetrics {
  /** By mount, then by status and method class as one number: a string key made per request would be hashed per request. */
  private readonly requests = new Map<string, Map<number, RequestSeries>>();
  private readonly latency = new Map<string, LatencySeries>();
  private readonly cache = new Map<string, { hits: number; misses: number }>();
  private readonly writes = new Map<string, number>();
  private registry: Promise<Exposer> | undefined;

  constructor(private readonly reactor: Reactor) {
    reactor.processes?.answer('prometheus', async () => (await (this.registry ??= this.build())).getMetricsAsJSON());
  }

  /** One finished request: `mount` is its mount's prefix, or where the reactor itself answered. */
  record(mount: string, method: string, status: number, seconds: number, bytes: number): void {
    const methodClass: MethodClass = method === 'GET' || method === 'HEAD' ? 'read' : method === 'POST' || method === 'PUT' || method === 'DELETE' || method === 'PATCH' ? 'write' : 'other';
    let byKey = this.requests.get(mount);
    if (!byKey) this.requests.set(mount, (byKey = new Map()));
    const key = status * 3 + (methodClass === 'read' ? 0 : methodClass === 'write' ? 1 : 2);
    let series = byKey.get(key);
    if (!series) byKey.set(key, (series = { labels: { mount, method: methodClass, status: String(status) }, requests: 0, bytes: 0 }));
    series.requests++;
    series.bytes += bytes;
    let latency = this.latency.get(mount);
    if (!latency) this.latency.set(mount, (latency = { mount, counts: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    latency.counts[bucket]!++;
    latency.sum += seconds;
    latency.count++;
    if (methodClass === 'write' && status < 400) this.writes.set(mount, (this.writes.get(mount) ?? 0) + 1);
  }

  /** A static GET answered from a lookup already made (a hit), or one that had to look first. */
  lookup(mount: string, cached: boolean): void {
    let counts = this.cache.get(mount);
    if (!counts) this.cache.set(mount, (counts = { hits: 0, misses: 0 }));
    if (cached) counts.hits++;
    else counts.misses++;
  }

  /** The text exposition, and its content type: of every process of the reactor, added up, when it runs as several. */
  async exposition(): Promise<{ body: string; contentType: string }> {
    const registry = await (this.registry ??= this.build());
    const { processes } = this.reactor;
    if (!processes) return { body: await registry.metrics(), contentType: registry.contentType };
    const { AggregatorRegistry } = await promClient();
    const all = AggregatorRegistry.aggregate((await processes.gather('prometheus', 0)) as object[][]);
    return { body: await all.metrics(), contentType: registry.contentType };
  }

  private async build(): Promise<Exposer> {
    const { Registry, collectDefaultMetrics } = await promClient();
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const collect of [() => this.requestCounts(), () => this.byteCounts(), () => this.latencies(), () => this.cacheCounts(), () => this.writeCounts(), () => this.packages()]) {
      const first = collect();
      registry.registerMetric({ name: first.name, type: first.type, get: async () => collect() } as unknown as Parameters<typeof registry.registerMetric>[0]);
    }
    return registry;
  }

  private series(): RequestSeries[] {
    return [...this.requests.values()].flatMap((byKey) => [...byKey.values()]);
  }

  private requestCounts(): Collected {
    return { name: 'pkg_http_requests_total', help: 'Requests answered, by mount, method class (read, write, other) and status.', type: 'counter', aggregator: 'sum', values: this.series().map((series) => ({ labels: series.labels, value: series.requests })) };
  }

  private byteCounts(): Collected {
    return { name: 'pkg_http_response_bytes_total', help: 'Bytes sent on the connection (status line, headers and body, as nginx bytes_sent), by mount, method class and status.', type: 'counter', aggregator: 'sum', values: this.series().map((series) => ({ labels: series.labels, value: series.bytes })) };
  }

  private latencies(): Collected {
    const values: Collected['values'] = [];
    for (const series of this.latency.values()) {
      let cumulative = 0;
      BUCKETS.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({ labels: { mount: series.mount, le: bound }, value: cumulative, metricName: 'pkg_http_request_duration_seconds_bucket' });
      });
      values.push({ labels: { mount: series.mount, le: '+Inf' }, value: series.count, metricName: 'pkg_http_request_duration_seconds_bucket' });
      values.push({ labels: { mount: series.mount }, value: series.sum, metricName: 'pkg_http_request_duration_seconds_sum' });
      values.push({ labels: { mount: series.mount }, value: series.count, metricName: 'pkg_http_request_duration_seconds_count' });
    }
    return { name: 'pkg_http_request_duration_seconds', help: 'Time from a request to its answer being written, by mount.', type: 'histogram', aggregator: 'sum', values };
  }

  private cacheCounts(): Collected {
    const values = [...this.cache].flatMap(([mount, counts]) => [
      { labels: { mount, result: 'hit' }, value: counts.hits },
      { labels: { mount, result: 'miss' }, value: counts.misses },
    ]);
    return { name: 'pkg_static_lookups_total', help: 'Static GETs answered from a lookup made before (hit) or after looking the path up (miss).', type: 'counter', aggregator: 'sum', values };
  }

  private writeCounts(): Collected {
    return { name: 'pkg_overlay_writes_total', help: 'Writes acknowledged (data API, content, save), by mount.', type: 'counter', aggregator: 'sum', values: [...this.writes].map(([mount, value]) => ({ labels: { mount }, value })) };
  }

  private packages(): Collected {
    const values = this.reactor.all().map((mount) => ({ labels: { mount: mount.prefix, package: mount.pkg.name, version: mount.pkg.model.metadata.version }, value: this.reactor.packageStatus(mount).valid ? 1 : 0 }));
    // Every process verifies for itself: valid only where all of them found it so.
    return { name: 'pkg_package_valid', help: "1 when the package's latest verification passed (checksums and signature), 0 when it failed.", type: 'gauge', aggregator: 'min', values };
  }
}

/**
 * The metrics of worker processes that are gone, as one (see DepartedFolds): their summed
 * counters and histograms, which the reactor's totals keep; not their gauges (memory, say),
 * true only of a process while it lived.
 */
export async function departedMetrics(answers: unknown[]): Promise<object[]> {
  const { AggregatorRegistry } = await promClient();
  const counting = (answers as Array<Array<{ type: string; aggregator: string }>>).map((metrics) => metrics.filter((metric) => metric.aggregator === 'sum' && (metric.type === 'counter' || metric.type === 'histogram')));
  return AggregatorRegistry.aggregate(counting).getMetricsAsJSON();
}

/** prom-client is CommonJS: bundled, its exports are the module's default export. */
async function promClient(): Promise<PromClient> {
  const module = await import('prom-client');
  return (module as unknown as { default?: PromClient }).default ?? module;
}
