/** A global class record as the schema registry lists it (`application/vnd.adobe.xed-id+json`). */
export interface ClassRecord {
  $id: string;
  "meta:altId": string;
  version: string;
  title: string;
}

// The first records are real global classes; the rest are made up so that paging has work to do.
const KNOWN: [string, string, string][] = [
  ["XDM Individual Profile", "https://ns.adobe.com/xdm/context/profile", "1.44.1"],
  ["XDM ExperienceEvent", "https://ns.adobe.com/xdm/context/experienceevent", "1.44.1"],
  ["XDM Business Account", "https://ns.adobe.com/xdm/context/account", "1.6.2"],
  ["XDM Business Opportunity", "https://ns.adobe.com/xdm/context/opportunity", "1.5.1"],
  ["Segment definition", "https://ns.adobe.com/xdm/context/segmentdefinition", "1.10.1"],
  ["Product", "https://ns.adobe.com/xdm/context/product", "1.2.1"],
];

/**
 * Builds `count` class records sorted by title (the registry's default `orderby`), with unique titles
 * so that a title can serve as the `start` of a page.
 */
export function buildClassCatalog(count: number): ClassRecord[] {
  const out: ClassRecord[] = [];
  for (let i = 0; i < count; i++) {
    const known = KNOWN[i];
    const [title, id, version] = known ?? [
      `Emulated Class ${String(i).padStart(5, "0")}`,
      `https://ns.adobe.com/emulator/classes/c${i}`,
      `1.${i % 50}.${i % 7}`,
    ];
    out.push({ $id: id, "meta:altId": altIdOf(id), version, title });
  }
  return out.sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
}

/** `https://ns.adobe.com/xdm/context/profile` -> `_xdm.context.profile`, as the registry derives it. */
function altIdOf(id: string): string {
  const path = new URL(id).pathname.split("/").filter((p) => p !== "");
  return `_${path.join(".")}`;
}

/** The full record (`application/vnd.adobe.xed+json`): the id fields plus a minimal schema body. */
export function fullClassRecord(r: ClassRecord): Record<string, unknown> {
  return {
    ...r,
    type: "object",
    description: `${r.title} (emulated)`,
    "meta:extensible": true,
    "meta:abstract": true,
    "meta:resourceType": "classes",
    "meta:registryMetadata": { "repo:createdDate": 1_551_376_506_996, "xdm:createdClientId": "xdm" },
  };
}
