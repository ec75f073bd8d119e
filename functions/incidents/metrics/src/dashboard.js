"use strict";
// The dashboard: reads /grafana/api/metrics (the figures of /prometheus) every 15 s and draws
// SVG charts. Counters are totals; the log volume per minute is the difference between two
// reads, so its line grows while this page stays open (Grafana over /prometheus keeps history).
(function () {
  const ENDPOINT = "/grafana/api/metrics";
  const EVERY_MS = 15000;
  const KEEP = 120;
  const SVG = "http://www.w3.org/2000/svg";
  const SEVERITIES = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];
  const COLORS = { TRACE: "#98a2b3", DEBUG: "#7a5af8", INFO: "#2e90fa", WARN: "#f79009", ERROR: "#f04438", FATAL: "#912018",
    ACTIVE: "#f04438", ACKNOWLEDGED: "#f79009", RESOLVED: "#12b76a" };
  const history = [];

  function el(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function html(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function family(report, name) {
    return report.metrics.find((f) => f.name === name) || { series: [] };
  }

  function number(v) {
    if (!isFinite(v)) return "-";
    if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(1) + "M";
    if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + "k";
    return String(Math.round(v * 100) / 100);
  }

  function duration(seconds) {
    if (!isFinite(seconds)) return "-";
    if (seconds < 1) return Math.round(seconds * 1000) + " ms";
    if (seconds < 120) return (Math.round(seconds * 10) / 10) + " s";
    if (seconds < 7200) return Math.round(seconds / 60) + " min";
    if (seconds < 172800) return (Math.round(seconds / 360) / 10) + " h";
    return (Math.round(seconds / 8640) / 10) + " d";
  }

  function legend(keys) {
    const box = html("div", "legend");
    for (const key of keys) {
      const item = html("span");
      const swatch = html("span", "swatch");
      swatch.style.background = COLORS[key] || "#667085";
      item.append(swatch, document.createTextNode(key));
      box.append(item);
    }
    return box;
  }

  function figures(pairs) {
    const box = html("p", "figures");
    for (const [label, value] of pairs) {
      const item = html("span", null, label + ": ");
      item.append(html("b", null, value));
      box.append(item);
    }
    return box;
  }

  // Bars of labelled values (a colour per label where it has one).
  function bars(items, format) {
    const width = 420, height = 180, left = 44, bottom = 34, top = 20;
    const max = Math.max(1, ...items.map((i) => i.value));
    // The chart's figures in words, for screen readers.
    const label = items.map((i) => `${i.label}: ${format(i.value)}`).join(", ") || "No figures yet";
    const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
    svg.append(el("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" }));
    svg.append(el("text", { x: left - 6, y: top + 4, "text-anchor": "end", class: "muted" }, number(max)));
    svg.append(el("text", { x: left - 6, y: height - bottom, "text-anchor": "end", class: "muted" }, "0"));
    const slot = (width - left) / Math.max(1, items.length);
    items.forEach((item, i) => {
      const h = (item.value / max) * (height - bottom - top);
      const x = left + i * slot + slot * 0.15;
      const bar = el("rect", { x, y: height - bottom - h, width: slot * 0.7, height: Math.max(0, h),
        fill: COLORS[item.label] || "#2e90fa", rx: 2 });
      bar.append(el("title", {}, `${item.label}: ${format(item.value)}`));
      svg.append(bar);
      svg.append(el("text", { x: x + slot * 0.35, y: height - bottom - h - 3, "text-anchor": "middle" }, format(item.value)));
      svg.append(el("text", { x: x + slot * 0.35, y: height - bottom + 14, "text-anchor": "middle", class: "muted" }, item.label));
    });
    return svg;
  }

  // One line per key over the reads kept so far.
  function lines(points, keys) {
    const width = 420, height = 180, left = 44, bottom = 24, top = 10;
    const last = points[points.length - 1];
    const label = last ? `Latest: ${keys.map((k) => `${k} ${number(last.values[k] || 0)}`).join(", ")}` : "No figures yet";
    const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
    const max = Math.max(1, ...points.flatMap((p) => keys.map((k) => p.values[k] || 0)));
    svg.append(el("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" }));
    svg.append(el("text", { x: left - 6, y: top + 4, "text-anchor": "end", class: "muted" }, number(max)));
    svg.append(el("text", { x: left - 6, y: height - bottom, "text-anchor": "end", class: "muted" }, "0"));
    if (points.length < 2) {
      svg.append(el("text", { x: (width + left) / 2, y: height / 2, "text-anchor": "middle", class: "muted" },
        "the line starts at the next read"));
      return svg;
    }
    const t0 = points[0].at, t1 = points[points.length - 1].at;
    const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (width - left - 4);
    const y = (v) => height - bottom - (v / max) * (height - bottom - top);
    for (const key of keys) {
      const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.at).toFixed(1)},${y(p.values[key] || 0).toFixed(1)}`).join(" ");
      svg.append(el("path", { d, fill: "none", stroke: COLORS[key] || "#2e90fa", "stroke-width": 2 }));
    }
    const clock = (t) => new Date(t).toLocaleTimeString();
    svg.append(el("text", { x: left, y: height - 6, class: "muted" }, clock(t0)));
    svg.append(el("text", { x: width - 4, y: height - 6, "text-anchor": "end", class: "muted" }, clock(t1)));
    return svg;
  }

  // A histogram's series summed into one: cumulative counts per bound, sum and count.
  function merged(fam) {
    let out = null;
    for (const s of fam.series) {
      if (!s.buckets) continue;
      if (!out) out = { buckets: s.buckets.map((b) => ({ le: b.le, count: 0 })), sum: 0, count: 0 };
      s.buckets.forEach((b, i) => { if (out.buckets[i]) out.buckets[i].count += b.count; });
      out.sum += s.sum || 0;
      out.count += s.count || 0;
    }
    return out;
  }

  // Prometheus's histogram_quantile: linear within the bucket the rank falls in.
  function quantile(q, h) {
    if (!h || h.count === 0) return NaN;
    const rank = q * h.count;
    let lower = 0, below = 0;
    for (const b of h.buckets) {
      const upper = b.le === "+Inf" ? Infinity : Number(b.le);
      if (b.count >= rank) {
        if (upper === Infinity) return lower;
        const inBucket = b.count - below;
        return inBucket > 0 ? lower + (upper - lower) * ((rank - below) / inBucket) : upper;
      }
      lower = upper;
      below = b.count;
    }
    return lower;
  }

  function histogramChart(target, fam, empty) {
    const h = merged(fam);
    target.replaceChildren();
    if (!h || h.count === 0) {
      target.append(html("p", "note", empty));
      return;
    }
    let previous = 0;
    const items = h.buckets.map((b) => {
      const item = { label: b.le === "+Inf" ? "more" : "≤" + duration(Number(b.le)), value: b.count - previous };
      previous = b.count;
      return item;
    });
    // The first bucket that holds anything and the last, so the bars stay readable.
    const first = Math.max(0, items.findIndex((i) => i.value > 0) - 1);
    let last = items.length - 1;
    while (last > first && items[last].value === 0) last--;
    target.append(bars(items.slice(first, Math.min(items.length, last + 2)), (v) => String(v)));
    target.append(figures([
      ["count", String(h.count)],
      ["mean", duration(h.sum / h.count)],
      ["p50", duration(quantile(0.5, h))],
      ["p95", duration(quantile(0.95, h))],
    ]));
  }

  function draw(report) {
    // Log volume by severity: totals, and per minute between reads.
    const totals = {};
    for (const s of family(report, "incident_logs_ingested_total").series) {
      const sev = s.labels.severity;
      totals[sev] = (totals[sev] || 0) + (s.value || 0);
    }
    const at = Date.parse(report.generatedAt) || Date.now();
    history.push({ at, totals });
    if (history.length > KEEP) history.shift();
    const rates = [];
    for (let i = 1; i < history.length; i++) {
      const a = history[i - 1], b = history[i];
      const minutes = Math.max(1e-3, (b.at - a.at) / 60000);
      const values = {};
      for (const sev of SEVERITIES) values[sev] = Math.max(0, ((b.totals[sev] || 0) - (a.totals[sev] || 0)) / minutes);
      rates.push({ at: b.at, values });
    }
    const seen = SEVERITIES.filter((s) => history.some((h) => h.totals[s]));
    const volume = document.getElementById("volume");
    volume.replaceChildren(lines(rates, seen.length ? seen : SEVERITIES), legend(seen.length ? seen : SEVERITIES));
    const total = SEVERITIES.map((s) => ({ label: s, value: totals[s] || 0 }));
    document.getElementById("totals").replaceChildren(bars(total, number));

    // Incidents by status (ACTIVE and ACKNOWLEDGED are open).
    const status = {};
    for (const s of family(report, "incident_incidents").series) status[s.labels.status] = s.value || 0;
    const statuses = ["ACTIVE", "ACKNOWLEDGED", "RESOLVED"].map((s) => ({ label: s, value: status[s] || 0 }));
    const open = (status.ACTIVE || 0) + (status.ACKNOWLEDGED || 0);
    document.getElementById("incidents").replaceChildren(bars(statuses, number), figures([["open", String(open)]]));

    histogramChart(document.getElementById("latency"), family(report, "incident_llm_latency_seconds"), "No model call measured yet.");
    histogramChart(document.getElementById("ack"), family(report, "incident_time_to_acknowledge_seconds"), "No incident acknowledged yet.");
    histogramChart(document.getElementById("resolve"), family(report, "incident_time_to_resolve_seconds"), "No incident resolved yet.");

    // Alerts and analyses: totals.
    const sum = (name, by) => {
      const out = {};
      for (const s of family(report, name).series) out[s.labels[by]] = (out[s.labels[by]] || 0) + (s.value || 0);
      return out;
    };
    const alerts = sum("incident_alerts_fired_total", "severity");
    const analyses = sum("incident_analyses_total", "outcome");
    const pairs = Object.keys(alerts).sort().map((k) => ["alerts " + k, String(alerts[k])]);
    pairs.push(["analyses ok", String(analyses.ok || 0)], ["analyses failed", String(analyses.error || 0)]);
    document.getElementById("activity").replaceChildren(figures(pairs));
  }

  const status = document.getElementById("status");
  async function read() {
    try {
      const response = await fetch(ENDPOINT, { credentials: "same-origin", cache: "no-store", headers: { accept: "application/json" } });
      if (response.status === 401) throw new Error("not signed in: reload the page to sign in again");
      if (!response.ok) throw new Error("the metrics answered " + response.status);
      const report = await response.json();
      draw(report);
      status.className = "";
      status.textContent = "Read at " + new Date(report.generatedAt).toLocaleTimeString() + ", every 15 s";
    } catch (error) {
      status.className = "error";
      status.textContent = String(error.message || error);
    }
  }
  read();
  setInterval(read, EVERY_MS);
})();
