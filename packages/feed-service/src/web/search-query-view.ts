/**
 * A search as typed, with its operators (spec §4: `title:`, `feed:`, `lang:`, `after:`,
 * `before:`, a prefix's `*`, `OR`, a leading `-`) set apart from the words they apply to, so that
 * the results page shows what each part of the query did. Text stays text: every part is escaped.
 */
import { type Html, html } from "./html.js";

const operatorName = /^(-?)((?:title|feed|lang|after|before):)(?=\S)/iu;

function tokenView(token: string): Html | string {
  if (token === "OR") return html`<span class="operator">OR</span>`;
  const named = operatorName.exec(token);
  let head: Html | string = "";
  let rest = token;
  if (named !== null) {
    head = html`<span class="operator">${named[1]}${named[2]}</span>`;
    rest = token.slice(named[0].length);
  } else if (token.startsWith("-") && token.length > 1) {
    head = html`<span class="operator">-</span>`;
    rest = token.slice(1);
  }
  const star = rest.length > 1 && rest.endsWith("*");
  const body = star ? rest.slice(0, -1) : rest;
  return html`${head}${body}${star ? html`<span class="operator">*</span>` : ""}`;
}

/**
 * @example
 * queryView("rust -feed:spam").toString();
 * // 'rust <span class="operator">-feed:</span>spam'
 */
export function queryView(query: string): Html {
  return html`${query.split(/(\s+)/u).map((part) => (/^\s*$/u.test(part) ? part : tokenView(part)))}`;
}
