/**
 * The frame of the admin pages: the public layout (same stylesheet, light and dark, phone and
 * desktop), an admin navigation with the sign-out button, and the form pieces every page uses —
 * fields whose error sits beside them, the CSRF token, and text from feeds and visitors shown so
 * that it cannot pass for anything else.
 */
import { visibleText } from "../../admin/visible-text.js";
import { type Html, type HtmlValue, html } from "../html.js";
import type { PageContext } from "../page-context.js";
import { pageDocument } from "../page-layout.js";

export type AdminSection =
  | "dashboard"
  | "suggestions"
  | "feeds"
  | "categories"
  | "smart-categories"
  | "languages"
  | "opml"
  | "users"
  | "audit"
  | "none";

/** Who is signed in, for the frame (name) and every form (token). */
export interface AdminViewer {
  readonly userName: string;
  readonly csrfToken: string;
}

const sections: ReadonlyArray<readonly [AdminSection, string, string]> = [
  ["dashboard", "/admin", "Dashboard"],
  ["suggestions", "/admin/suggestions", "Suggestions"],
  ["feeds", "/admin/feeds", "Feeds"],
  ["categories", "/admin/categories", "Categories"],
  ["smart-categories", "/admin/smart-categories", "Smart categories"],
  ["languages", "/admin/languages", "Languages"],
  ["opml", "/admin/opml", "OPML"],
  ["users", "/admin/users", "Administrators"],
  ["audit", "/admin/audit", "Audit log"],
];

export function csrfInput(viewer: AdminViewer): Html {
  return html`<input type="hidden" name="csrf" value="${viewer.csrfToken}">`;
}

/** A page of the admin area: the navigation, a heading, an optional notice, the content. */
export function adminDocument(
  page: { title: string; section: AdminSection; notice?: string | null; main: HtmlValue },
  viewer: AdminViewer | null,
  context: PageContext,
): Html {
  const nav = viewer
    ? html`<nav class="admin-nav" aria-label="Administration"><ul>${sections.map(
        ([id, href, label]) =>
          html`<li><a href="${href}"${id === page.section ? html` aria-current="page"` : ""}>${label}</a></li>`,
      )}<li><form method="post" action="/admin/sign-out">${csrfInput(viewer)}<button type="submit" class="quiet">Sign out ${viewer.userName}</button></form></li></ul></nav>`
    : "";
  const notice = page.notice ? html`<p class="notice" role="status">${page.notice}</p>` : "";
  return pageDocument(
    { title: page.title, section: "none", main: html`${nav}<h1>${page.title}</h1>${notice}${page.main}` },
    context,
  );
}

/** Errors by field name, shown beside each field (and the form's own under ""). */
export type FieldErrors = Readonly<Record<string, string>>;

export interface FieldSpec {
  readonly name: string;
  readonly label: string;
  readonly type?: "text" | "url" | "password" | "file";
  readonly value?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly autocomplete?: string;
  readonly maxlength?: number;
  /** Several of the page's forms have a field of this name: ids get this prefix. */
  readonly idPrefix?: string;
}

/** One labelled input with its hint and, when it was wrong, its error right beside it. */
export function formField(spec: FieldSpec, errors: FieldErrors): Html {
  const id = `${spec.idPrefix ?? "f"}-${spec.name}`;
  const error = errors[spec.name];
  const described = [spec.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  const type = spec.type ?? "text";
  return html`<div class="field">
<label for="${id}">${spec.label}</label>
${spec.hint ? html`<span class="hint" id="${id}-hint">${spec.hint}</span>` : ""}
<input id="${id}" name="${spec.name}" type="${type}"${type === "password" || type === "file" ? "" : html` value="${spec.value ?? ""}"`}${spec.required ? html` required` : ""}${spec.autocomplete ? html` autocomplete="${spec.autocomplete}"` : ""}${spec.maxlength ? html` maxlength="${spec.maxlength}"` : ""}${described ? html` aria-describedby="${described}"` : ""}${error ? html` aria-invalid="true"` : ""}>
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ""}
</div>`;
}

/** The form's own error (not tied to one field), as an alert above its fields. */
export function formError(errors: FieldErrors): Html | "" {
  return errors[""] ? html`<p class="field-error" role="alert">${errors[""]}</p>` : "";
}

/**
 * Text from a feed or a visitor as an administrator must see it: control and direction characters
 * written out as `[U+202E]`, the rest isolated in `<bdi>` so its direction cannot spill over the
 * page, and cut at `max` characters.
 *
 * @example
 * shown("abc\u202Edef"); // <bdi>abc[U+202E]def</bdi>
 */
export function shown(text: string | null | undefined, max = 300): Html {
  return html`<bdi>${visibleText(text, max)}</bdi>`;
}

export { visibleText };
