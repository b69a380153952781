// A strict reader of Prometheus's text exposition format (version 0.0.4, what node_exporter's
// textfile collector reads), written to the format's specification
// (prometheus.io/docs/instrumenting/exposition_formats): it throws on anything the collector
// would refuse or read differently, naming the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string | null;
  type: string | null;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|NaN|[+-]Inf)$/;

function parseValue(text: string, where: string): number {
  if (!VALUE.test(text)) throw new Error(`${where}: "${text}" is not a sample value`);
  return text === "NaN" ? NaN : text.endsWith("Inf") ? (text.startsWith("-") ? -Infinity : Infinity) : Number(text);
}

/** Labels between braces: name="value" pairs, values with only \\, \" and \n escaped. */
function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq < 0) throw new Error(`${where}: a label without =`);
    const name = text.slice(i, eq).trim();
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`${where}: "${name}" is not a label name`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    if (text[eq + 1] !== '"') throw new Error(`${where}: label ${name}'s value is not quoted`);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\n") throw new Error(`${where}: a raw line feed in a label value`);
      if (text[j] !== "\\") value += text[j];
      else {
        const next = text[++j];
        if (next === "\\" || next === '"') value += next;
        else if (next === "n") value += "\n";
        else throw new Error(`${where}: the escape \\${next} is not allowed in a label value`);
      }
    }
    if (j >= text.length) throw new Error(`${where}: label ${name}'s value is never closed`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (i < text.length) throw new Error(`${where}: expected , between labels`);
  }
  return labels;
}

function parseSample(line: string, where: string): Sample {
  const m = /^([^\s{]+)(?:\{(.*)\})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?$/.exec(line);
  if (!m) throw new Error(`${where}: not a sample line: ${line}`);
  if (!METRIC_NAME.test(m[1]!)) throw new Error(`${where}: "${m[1]}" is not a metric name`);
  return { name: m[1]!, labels: parseLabels(m[2] ?? "", where), value: parseValue(m[3]!, where) };
}

/** The families of a text, in order; throws naming the line on any breach of the format. */
export function parsePrometheusText(text: string): Family[] {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("the text does not end with a line feed");
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current: Family | null = null;
  const seen = new Set<string>();
  const family = (name: string, where: string): Family => {
    if (current?.name === name) return current;
    if (closed.has(name) || families.has(name)) throw new Error(`${where}: family ${name} is split (its lines must be together)`);
    if (current) closed.add(current.name);
    current = { name, help: null, type: null, samples: [] };
    families.set(name, current);
    return current;
  };
  for (const [i, line] of text.split("\n").slice(0, -1).entries()) {
    const where = `line ${i + 1}`;
    if (line.trim() === "") continue;
    const meta = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
    if (meta) {
      if (!METRIC_NAME.test(meta[2]!)) throw new Error(`${where}: "${meta[2]}" is not a metric name`);
      const f = family(meta[2]!, where);
      if (meta[1] === "HELP") {
        if (f.help !== null) throw new Error(`${where}: a second HELP for ${f.name}`);
        f.help = meta[3] ?? "";
      } else {
        if (f.type !== null) throw new Error(`${where}: a second TYPE for ${f.name}`);
        if (f.samples.length > 0) throw new Error(`${where}: TYPE after ${f.name}'s samples`);
        if (!TYPES.has(meta[3] ?? "")) throw new Error(`${where}: "${meta[3]}" is not a metric type`);
        f.type = meta[3]!;
      }
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = parseSample(line, where);
    const f = family(sample.name, where);
    const series = sample.name + JSON.stringify(Object.entries(sample.labels).sort());
    if (seen.has(series)) throw new Error(`${where}: the series ${series} twice`);
    seen.add(series);
    f.samples.push(sample);
  }
  return [...families.values()];
}
