// `GET /debug/beehive.html`: the hive's report as a page. It is self-contained (no request leaves the server): its
// script fetches `/debug/beehive` (the report as JSON, Docs/Report.md) and renders it in tables, with text set as
// text (`textContent`), never as markup. Every row carries the values it shows as data attributes, for a test:
// `tr.plugin[data-plugin]`, `tr.service[data-service][data-name][data-implementation][data-state][data-plugin]
// [data-image]`, `tr.route[data-pattern][data-handler]`, `tr.withdrawn[data-service]`, `tr.problem[data-code]`;
// once rendered, `<html data-report="loaded">` (or `data-report="failed"`, with the error in `#status`).
// Examples/PluginServer/check-debug-page.sh loads it in headless Chromium.
import Hummingbird

enum DebugPage {
    /// The page, served with `Content-Type: text/html`.
    static func response() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html))
        )
    }

    static let html = #"""
        <!DOCTYPE html>
        <html lang="en" data-report="loading">
        <head>
        <meta charset="utf-8">
        <title>BeeHive</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
        h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
        table { border-collapse: collapse; width: 100%; }
        th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; } td.source, td.path { font-family: monospace; font-size: 0.9em; }
        tr[data-state="waiting"] { color: #777; } tr[data-state="unresolvable"], tr.problem.error { color: #b00; }
        .empty { color: #777; font-style: italic; } #status { color: #555; }
        </style>
        </head>
        <body>
        <h1>BeeHive</h1>
        <p id="status">Loading the report…</p>
        <p><button id="refresh" type="button">Refresh</button> <a href="beehive">JSON</a>
        · <a href="beehive.dot">Graphviz</a></p>
        <h2>Plugins</h2>
        <table id="plugins"><thead><tr><th>plugin</th><th>services</th><th>routes</th><th>modules</th></tr></thead>
        <tbody></tbody></table>
        <h2>Services</h2>
        <table id="services"><thead><tr><th>service</th><th>name</th><th>implementation</th><th>rank</th>
        <th>state</th><th>source</th><th>plugin</th></tr></thead><tbody></tbody></table>
        <h2>Routes</h2>
        <table id="routes"><thead><tr><th>pattern</th><th>handler</th><th>source</th><th>plugin</th></tr></thead>
        <tbody></tbody></table>
        <h2>Withdrawn</h2>
        <table id="withdrawn"><thead><tr><th>service</th><th>name</th><th>reason</th></tr></thead>
        <tbody></tbody></table>
        <h2>Problems</h2>
        <table id="problems"><thead><tr><th>severity</th><th>code</th><th>message</th><th>where</th></tr></thead>
        <tbody></tbody></table>
        <script>
        "use strict";
        const program = "(the program)";

        function row(table, className, data, cells) {
            const tr = document.querySelector("#" + table + " tbody").insertRow();
            tr.className = className;
            for (const [key, value] of Object.entries(data)) tr.dataset[key] = value ?? "";
            for (const [text, cellClass] of cells) {
                const td = tr.insertCell();
                td.textContent = text ?? "";
                if (cellClass) td.className = cellClass;
            }
            return tr;
        }

        function none(table, columns, text) {
            const td = document.querySelector("#" + table + " tbody").insertRow().insertCell();
            td.colSpan = columns;
            td.className = "empty";
            td.textContent = text;
        }

        function clear() {
            for (const body of document.querySelectorAll("tbody")) body.replaceChildren();
        }

        function render(report) {
            clear();
            const plugins = new Map();
            const count = (plugin, what) => {
                const key = plugin ?? program;
                if (!plugins.has(key)) plugins.set(key, { services: 0, routes: 0, modules: 0 });
                plugins.get(key)[what] += 1;
            };
            for (const s of report.services ?? []) count(s.plugin, "services");
            for (const r of report.routes ?? []) count(r.plugin, "routes");
            for (const m of report.modules ?? []) count(m.plugin, "modules");
            for (const [plugin, n] of plugins) {
                row("plugins", "plugin", { plugin: plugin === program ? "" : plugin },
                    [[plugin, "path"], [String(n.services)], [String(n.routes)], [String(n.modules)]]);
            }
            if (plugins.size === 0) none("plugins", 4, "none");
            for (const s of report.services ?? []) {
                const source = s.source ?? {};
                const tr = row("services", "service", {
                    service: s.service, name: s.name, implementation: s.implementation, state: s.state,
                    rank: String(s.rank ?? 0), kind: source.kind, image: source.image, plugin: s.plugin
                }, [
                    [s.service], [s.name], [s.implementation], [String(s.rank ?? 0)],
                    [s.reason ? s.state + ": " + s.reason : s.state], [source.description, "source"],
                    [s.plugin ?? program, "path"]
                ]);
                if (s.properties) tr.title = JSON.stringify(s.properties);
            }
            if ((report.services ?? []).length === 0) none("services", 7, "none");
            for (const r of report.routes ?? []) {
                row("routes", "route", { pattern: r.pattern, handler: r.handler, plugin: r.plugin },
                    [[r.pattern], [r.handler], [r.source?.description, "source"], [r.plugin ?? program, "path"]]);
            }
            if ((report.routes ?? []).length === 0) none("routes", 4, "none");
            for (const w of report.withdrawn ?? []) {
                row("withdrawn", "withdrawn", { service: w.service, name: w.name },
                    [[w.service], [w.name], [w.reason]]);
            }
            if ((report.withdrawn ?? []).length === 0) none("withdrawn", 3, "none");
            for (const p of report.problems ?? []) {
                row("problems", "problem " + p.severity, { code: p.code, severity: p.severity },
                    [[p.severity], [p.code], [p.message], [p.source?.description, "source"]]);
            }
            if ((report.problems ?? []).length === 0) none("problems", 4, "none");
            const dropped = report.droppedProblems ? ", " + report.droppedProblems + " older problems dropped" : "";
            document.getElementById("status").textContent =
                "Schema " + report.schemaVersion + ": " + (report.services ?? []).length + " services, " +
                (report.routes ?? []).length + " routes, " + plugins.size + " sources, " +
                (report.problems ?? []).length + " problems" + dropped + "; taken " + new Date().toISOString() + ".";
            document.documentElement.dataset.report = "loaded";
        }

        async function load() {
            try {
                const answer = await fetch("beehive", { cache: "no-store" });
                if (!answer.ok) throw new Error("GET /debug/beehive: " + answer.status);
                render(await answer.json());
            } catch (error) {
                document.getElementById("status").textContent = "Cannot load the report: " + error;
                document.documentElement.dataset.report = "failed";
            }
        }

        document.getElementById("refresh").addEventListener("click", load);
        load();
        </script>
        </body>
        </html>

        """#
}
