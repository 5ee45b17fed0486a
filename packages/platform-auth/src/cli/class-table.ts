import type { GlobalClass } from "../global-classes.js";

/** A plain-text table of classes: title, version, alt id ($id is long and follows from the alt id). */
export function formatClassTable(classes: GlobalClass[]): string {
  const rows = classes.map((c) => [c.title ?? "", c.version ?? "", c["meta:altId"] ?? ""]);
  const head = ["TITLE", "VERSION", "ALT ID"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}
