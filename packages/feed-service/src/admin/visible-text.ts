/**
 * Text from feeds and visitors as an administrator must see it, on a page or in a terminal:
 * bidirectional controls (which reorder what is around them: "gpj.exe" shown as "exe.jpg"), and
 * other control characters (which a page hides and a terminal obeys: escape sequences), written
 * out as `[U+202E]`; cut at `max` characters.
 *
 * @example
 * visibleText("abc\u202Edef"); // "abc[U+202E]def"
 */
const hiddenCharacters =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

export function visibleText(text: string | null | undefined, max = 300): string {
  const t = text ?? "";
  const cut = [...t].length > max ? `${[...t].slice(0, max).join("")}…` : t;
  return cut.replace(
    hiddenCharacters,
    (ch) => `[U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`,
  );
}
